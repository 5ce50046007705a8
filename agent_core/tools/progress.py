"""Progress of a running tool call: what a server reports, and who listens.

The listener travels in a context variable rather than through ``ToolRuntime.call_tool``: every
runtime in between (the switchable one, the sub-agent and workflow wrappers) passes the call on
unchanged, and none of them has to learn a new argument. Whoever runs a call sets the listener
around it; the MCP connection reads it and asks the server for progress only when someone listens.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["ProgressListener", "ToolProgress", "current_progress_listener", "listening_to_progress"]

MAX_MESSAGE_CHARS = 200  # a server's progress message is shown on one line


@dataclass(frozen=True)
class ToolProgress:
    """One progress report: ``progress`` of ``total`` (None when the server does not know)."""

    progress: float
    total: float | None = None
    message: str = ""
    task_status: str | None = None  # set when the call runs as a protocol task ("working", ...)

    @property
    def fraction(self) -> float | None:
        """Between 0 and 1 when the total is known, else None."""
        if self.total is None or self.total <= 0:
            return None
        return min(max(self.progress / self.total, 0.0), 1.0)

    def describe(self) -> str:
        """One line: "3/5 · 60% copying", "3 copying" or "task working · Analyzing content..."."""
        if self.task_status is not None:
            return f"task {self.task_status} · {self.message}" if self.message else f"task {self.task_status}"
        amount = f"{self.progress:g}/{self.total:g}" if self.total else f"{self.progress:g}"
        if (fraction := self.fraction) is not None:
            amount += f" · {fraction:.0%}"
        return f"{amount} {self.message}".strip()


ProgressListener = Callable[[ToolProgress], None]

_listener: ContextVar[ProgressListener | None] = ContextVar("tool_progress_listener", default=None)


def current_progress_listener() -> ProgressListener | None:
    """Who listens to the progress of the tool call being made in this context, if anyone."""
    return _listener.get()


@contextmanager
def listening_to_progress(listener: ProgressListener) -> Iterator[None]:
    """Tool calls made inside this block (and tasks started from it) report progress to ``listener``."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


def progress_report(progress: float, total: float | None, message: str | None) -> ToolProgress:
    """A server's report as a value, its message bounded (a server is untrusted input)."""
    text = " ".join((message or "").split())[:MAX_MESSAGE_CHARS]
    return ToolProgress(float(progress), float(total) if total is not None else None, text)


def task_report(status: str, message: str | None) -> ToolProgress:
    """A task's status as a progress report (a busy bar with the status), bounded like the others."""
    report = progress_report(0, None, message)
    return ToolProgress(0.0, None, report.message, task_status=status[:MAX_MESSAGE_CHARS])
