"""The last lines a server wrote: its stderr, read from a pipe by a thread into a ring buffer.

Memory is bounded whatever the server writes: the pipe is read in chunks, a line longer than
MAX_LINE_CHARS keeps only its end (a marker says how much was cut), even when the server never
writes a newline at all, and the buffer keeps the last ``max_lines`` lines.
"""

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
MAX_LINE_BYTES = 4 * MAX_LINE_CHARS  # what is kept of a line while it is read (UTF-8: <= 4 bytes a character)
CHUNK_BYTES = 64 * 1024


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

    def held_chars(self) -> int:
        """How many characters the buffer holds now (at most ``max_lines`` * MAX_LINE_CHARS)."""
        with self._lock:
            return sum(len(line) for line in self._lines)


class _LineAssembler:
    """Bytes in, lines out; of a line longer than ``limit`` bytes only the last ``limit`` are kept."""

    def __init__(self, limit: int = MAX_LINE_BYTES) -> None:
        self._limit = limit
        self._pending = bytearray()
        self._cut = 0

    @property
    def held_bytes(self) -> int:
        return len(self._pending)

    def feed(self, data: bytes) -> list[str]:
        lines: list[str] = []
        start = 0
        while (end := data.find(b"\n", start)) != -1:
            self._add(data[start:end])
            lines.append(self._take())
            start = end + 1
        self._add(data[start:])
        return lines

    def finish(self) -> list[str]:
        """The last line, when the stream ended without a newline."""
        return [self._take()] if self._pending or self._cut else []

    def _add(self, part: bytes) -> None:
        if len(part) >= self._limit:
            self._cut += len(self._pending) + len(part) - self._limit
            self._pending = bytearray(part[-self._limit :])
            return
        self._pending += part
        excess = len(self._pending) - self._limit
        if excess > 0:
            del self._pending[:excess]
            self._cut += excess

    def _take(self) -> str:
        text = self._pending.decode("utf-8", errors="replace").rstrip("\r")
        if self._cut:
            marker = f"[{self._cut} bytes cut from this line] ..."
            text = marker + text[-(MAX_LINE_CHARS - len(marker)) :]
        self._pending = bytearray()
        self._cut = 0
        return text


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
        self._lines = _LineAssembler()
        self._thread = threading.Thread(
            target=self._read, args=(read_fd,), name=f"mcp-stderr-{server}", daemon=True
        )
        self._thread.start()

    @property
    def held_bytes(self) -> int:
        """What is held of the line being read (bounded by MAX_LINE_BYTES, newline or not)."""
        return self._lines.held_bytes

    def _read(self, read_fd: int) -> None:
        try:
            while data := os.read(read_fd, CHUNK_BYTES):
                self._keep(self._lines.feed(data))
        finally:
            os.close(read_fd)
            self._keep(self._lines.finish())

    def _keep(self, lines: list[str]) -> None:
        for line in lines:
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
