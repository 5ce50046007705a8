"""A tool call run beside its progress reports, which reach the chat's events coalesced.

A server may report progress as fast as it can write; each report that became an event would cross
to the front end (in the desktop, a queued signal to the GUI thread). The relay keeps only the newest
report and hands one on at most every MIN_INTERVAL seconds, so ten thousand reports cost a few
dozen events, and a slow server's every step still shows.

Stopping the reply cancels the call and does not wait for it: the SDK sends the server
``notifications/cancelled`` from the abandoned call's own task, with a bounded write.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from typing import Generic, TypeVar

from agent_core.tools.progress import ToolProgress, listening_to_progress

__all__ = ["ProgressRelay"]

T = TypeVar("T")

MIN_INTERVAL = 0.1  # seconds between two progress events of one call

# Calls stopped by the user and still unwinding: held so the loop does not drop them half way.
_abandoned: set[asyncio.Task[object]] = set()


class ProgressRelay(Generic[T]):
    """Runs one call with a progress listener; ``events()`` yields its (coalesced) reports."""

    def __init__(self, call: Awaitable[T], min_interval: float = MIN_INTERVAL) -> None:
        self._latest: ToolProgress | None = None
        self._changed = asyncio.Event()
        self._min_interval = min_interval
        # The listener is in the context the task copies when it is created, and only there.
        with listening_to_progress(self._report):
            self.task: asyncio.Task[T] = asyncio.ensure_future(call)

    def _report(self, progress: ToolProgress) -> None:
        self._latest = progress
        self._changed.set()

    def _take(self) -> ToolProgress | None:
        progress, self._latest = self._latest, None
        self._changed.clear()
        return progress

    async def events(self) -> AsyncIterator[ToolProgress]:
        """The call's progress until it ends (then await ``task``). Leaving early cancels the call."""
        loop = asyncio.get_running_loop()
        last = float("-inf")
        try:
            while not self.task.done():
                changed = asyncio.ensure_future(self._changed.wait())
                try:
                    await asyncio.wait({self.task, changed}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    changed.cancel()
                hold = last + self._min_interval - loop.time()
                if hold > 0 and not self.task.done():
                    await asyncio.wait({self.task}, timeout=hold)
                if (progress := self._take()) is not None:
                    last = loop.time()
                    yield progress
            if (progress := self._take()) is not None:
                yield progress  # the last step, reported just before the result
        finally:
            self.abandon()

    def abandon(self) -> None:
        """Cancel the call if it still runs, without waiting for it."""
        task = self.task
        if not task.done():
            task.cancel()
            _abandoned.add(task)
            task.add_done_callback(_abandoned.discard)
