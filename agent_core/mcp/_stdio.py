"""The stdio transport on POSIX: the server in a process group of its own, read in linear time,
and everything it started ended with it.

The SDK's ``stdio_client`` (still used on Windows, where it puts the server in a Job Object that
kills the whole tree when closed) has two faults on POSIX that this replaces: it signals the
server's group only when the server outlives its stdin, so the helpers of a server that exits at
once keep running; and it joins every chunk of a line to what it holds so far, so a 50 MB answer
takes minutes (quadratic). Here a line is assembled from its chunks once, and bounded.

Shutdown follows the protocol's order: stdin closed, a grace for the server to exit, then SIGTERM
to its whole group and SIGKILL after a grace (``_process_group``), always, whether the server
exited by itself or not.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

import anyio
import anyio.abc
import mcp_types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import StdioServerParameters
from mcp.client._transport import TransportStreams
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

from agent_core.mcp._logs import StderrCapture
from agent_core.mcp._process_group import end_process_group

__all__ = ["EXIT_GRACE_SECONDS", "MAX_MESSAGE_BYTES", "MessageTooLargeError", "posix_stdio_client"]

logger = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 128 * 2**20  # one message (a line) at most; a longer one ends the connection
EXIT_GRACE_SECONDS = 2.0  # for the server to exit once its stdin is closed
_FLUSH_SECONDS = 0.5  # for messages already accepted to be written before stdin closes
_PIPE_ERRORS = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError)


class MessageTooLargeError(ValueError):
    """The server wrote a line longer than MAX_MESSAGE_BYTES (handed to the session as a bad item)."""


class _Lines:
    """Bytes in, complete lines out; each byte is copied once however many chunks a line spans."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._parts: list[bytes] = []
        self._held = 0

    def feed(self, chunk: bytes) -> list[bytes]:
        lines: list[bytes] = []
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            self._parts.append(chunk[start:end])
            lines.append(b"".join(self._parts))
            self._parts, self._held = [], 0
            start = end + 1
        rest = chunk[start:]
        if rest:
            self._parts.append(rest)
            self._held += len(rest)
            if self._held > self._limit:
                raise MessageTooLargeError(
                    f"a message of more than {self._limit // 2**20} MB (no end of line yet); "
                    "ContextDesk reads at most that much of one answer"
                )
        return lines


def _parsed(line: bytes, encoding: str) -> SessionMessage | Exception:
    text = line.decode(encoding, errors="replace")
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as error:  # pydantic's ValidationError: plain text, or JSON of the wrong shape
        logger.debug("a line from the server is not a JSON-RPC message: %s", text[:200])
        return error


@asynccontextmanager
async def posix_stdio_client(
    server: StdioServerParameters, capture: StderrCapture
) -> AsyncIterator[TransportStreams]:
    """Start the server in a session of its own, its stderr going to ``capture``.

    Raises:
        OSError: the command cannot be started.
    """
    process = await anyio.open_process(
        [server.command, *server.args],
        env=get_default_environment() | (server.env or {}),
        stderr=capture.writer,
        cwd=server.cwd,
        start_new_session=True,
    )
    assert process.stdin is not None and process.stdout is not None
    stdin, stdout = process.stdin, process.stdout
    incoming, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, outgoing = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()

    async def read() -> None:
        lines = _Lines(MAX_MESSAGE_BYTES)
        delivering = True  # until the session is gone; then what the server writes is drained
        async with incoming:
            with suppress(*_PIPE_ERRORS):
                async for chunk in stdout:
                    try:
                        for line in lines.feed(chunk) if delivering else ():
                            if line.strip():
                                await incoming.send(_parsed(line, server.encoding))
                    except MessageTooLargeError as error:
                        with suppress(*_PIPE_ERRORS):
                            await incoming.send(error)
                        delivering = False
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        delivering = False  # a server stuck writing could not read its stdin and exit

    async def write() -> None:
        try:
            async with outgoing:
                async for message in outgoing:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await stdin.send(data.encode(server.encoding, server.encoding_error_handler))
        except _PIPE_ERRORS:
            await incoming.aclose()  # the server stopped reading: the session must not wait on it
        finally:
            writer_done.set()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read)
        tasks.start_soon(write)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):  # a cancelled caller must not leave the server running
                await _shut_down(process, capture, read_stream, write_stream, writer_done)
            tasks.cancel_scope.cancel()


async def _shut_down(
    process: anyio.abc.Process,
    capture: StderrCapture,
    read_stream: MemoryObjectReceiveStream[SessionMessage | Exception],
    write_stream: MemoryObjectSendStream[SessionMessage],
    writer_done: anyio.Event,
) -> None:
    read_stream.close()
    write_stream.close()
    with anyio.move_on_after(_FLUSH_SECONDS):
        await writer_done.wait()
    with suppress(*_PIPE_ERRORS):
        await process.stdin.aclose()  # type: ignore[union-attr]
    with anyio.move_on_after(EXIT_GRACE_SECONDS):
        await process.wait()
    await end_process_group(process.pid, capture.wait_drained)
    with anyio.move_on_after(EXIT_GRACE_SECONDS):
        await process.wait()
    if process.returncode is None:
        logger.warning("MCP server process %d is still alive after SIGKILL; leaving it", process.pid)
    with suppress(*_PIPE_ERRORS):
        await process.stdout.aclose()  # type: ignore[union-attr]
