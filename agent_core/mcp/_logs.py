"""The last lines a server wrote: its stderr, read from a pipe by a thread into a ring buffer."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections import deque
from typing import TextIO

__all__ = ["LogBuffer", "StderrCapture"]

logger = logging.getLogger(__name__)

MAX_LINE_CHARS = 2000


class LogBuffer:
    """A thread-safe ring buffer of log lines."""

    def __init__(self, max_lines: int = 200) -> None:
        self._lines: deque[str] = deque(maxlen=max_lines)
        self._lock = threading.Lock()

    def append(self, line: str) -> None:
        with self._lock:
            self._lines.append(line[:MAX_LINE_CHARS])

    def tail(self, count: int = 20) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._lines)[-count:] if count > 0 else ()

    def clear(self) -> None:
        with self._lock:
            self._lines.clear()


class StderrCapture:
    """A pipe to give a child process as its stderr; every line it writes lands in ``buffer``.

    The SDK's ``stdio_client`` takes a file for the child's stderr (``errlog``), which must have a
    real file descriptor, so a pipe is used and read by a daemon thread (portable, and never on the
    event loop). Call ``close_writer`` once the child is spawned, so the reader sees end-of-file
    when the child (and any process it started) exits.
    """

    def __init__(self, buffer: LogBuffer, server: str) -> None:
        read_fd, write_fd = os.pipe()
        self.writer: TextIO = os.fdopen(write_fd, "w", encoding="utf-8")
        self._buffer = buffer
        self._server = server
        self._thread = threading.Thread(
            target=self._read, args=(read_fd,), name=f"mcp-stderr-{server}", daemon=True
        )
        self._thread.start()

    def _read(self, read_fd: int) -> None:
        with os.fdopen(read_fd, "rb") as pipe:
            for raw in pipe:
                line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                logger.debug("%s stderr: %s", self._server, line)
                self._buffer.append(line)

    def close_writer(self) -> None:
        if not self.writer.closed:
            self.writer.close()

    async def wait_drained(self, timeout: float = 1.0) -> bool:
        """Wait (bounded) until the child's last stderr lines are in the buffer."""
        self.close_writer()
        await asyncio.to_thread(self._thread.join, timeout)
        return not self._thread.is_alive()
