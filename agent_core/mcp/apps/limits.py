"""How much a view may send and ask for: every limit of the host side in one place."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["AppLimits", "RateWindow"]


@dataclass(frozen=True)
class AppLimits:
    """The limits of one view. Over one, the request is refused with a JSON-RPC error that says
    which (the view goes on); nothing is queued."""

    max_message_chars: int = 1_000_000  # one message from the view, as JSON
    max_calls_per_minute: int = 120  # tools/call and resources/read together
    max_calls_in_flight: int = 4  # of those, running at once
    max_posts_per_minute: int = 20  # ui/message and ui/update-model-context together
    max_recorded_text_chars: int = 20_000  # of one message or model context, kept and shown
    max_result_chars: int = 4_000_000  # a resource read for the view
    max_width: int = 4096  # a size change is clamped to these (CSS pixels)
    max_height: int = 4096
    teardown_wait_seconds: float = 3.0  # for the view's answer to ui/resource-teardown


class RateWindow:
    """Events in the last minute, to refuse one over ``per_minute``."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._per_minute = per_minute
        self._clock = clock
        self._times: deque[float] = deque()

    def take(self) -> bool:
        """Count one more event now; False (and not counted) when the minute is full."""
        now = self._clock()
        while self._times and now - self._times[0] >= 60.0:
            self._times.popleft()
        if len(self._times) >= self._per_minute:
            return False
        self._times.append(now)
        return True
