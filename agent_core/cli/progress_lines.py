"""Progress as lines on the terminal (stderr, so the result on stdout stays clean): a tool call's,
and the embedding of an agent's chunks."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from agent_core.tools.progress import ToolProgress

__all__ = ["ProgressPrinter", "indexing_progress", "progress_line"]

MIN_INTERVAL = 0.1  # seconds between two lines: a server's flood of reports prints a few lines a second


def progress_line(label: str, progress: ToolProgress) -> str:
    """``[echo: 3/5 · 60% copying]``."""
    return f"[{label}: {progress.describe()}]"


class ProgressPrinter:
    """A progress listener that prints a line per report, at most one every MIN_INTERVAL seconds
    (the last step always)."""

    def __init__(self, label: str, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self._label = label
        self._stream = stream
        self._clock = clock
        self._last = float("-inf")

    def __call__(self, progress: ToolProgress) -> None:
        now = self._clock()
        if now - self._last < MIN_INTERVAL and progress.fraction != 1.0:
            return
        self._last = now
        print(progress_line(self._label, progress), file=self._stream, flush=True)


def indexing_progress(stream: TextIO) -> Callable[[int, int], None]:
    """Reports a cold start's embedding on ``stream``: one updating line on a terminal, about
    every tenth otherwise (logs stay short)."""
    shown = [-1]

    def report(done: int, total: int) -> None:
        tenth = done * 10 // total
        if stream.isatty():
            end = "\n" if done >= total else ""
            print(f"\rcontextdesk: indexing {done:,} of {total:,} chunks…", end=end, file=stream, flush=True)
        elif tenth != shown[0] or done >= total:
            shown[0] = tenth
            print(f"contextdesk: indexing {done:,} of {total:,} chunks", file=stream, flush=True)

    return report
