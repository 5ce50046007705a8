"""What a server writes that is not a message: chatter to ignore, or an answer that breaks the
protocol and ends the connection at once.

A line that is not JSON at all (a banner, a stray print) is chatter: it is noted in the server's
log and the server goes on. A JSON value that is not a JSON-RPC message, or an answer to a request
that was never sent, is an invalid answer: left alone, the request it should have answered waits
out its whole timeout and ends in a confusing error, so the connection ends now, saying what the
server sent.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import mcp_types
from pydantic import ValidationError

from agent_core.mcp._stdio import MessageTooLargeError
from agent_core.mcp.errors import McpServerError

__all__ = [
    "MAX_TRACKED_REQUESTS",
    "InvalidAnswerError",
    "SentRequests",
    "chatter_text",
    "invalid_message",
    "is_chatter",
]

MAX_TRACKED_REQUESTS = 10_000  # unanswered requests remembered; the oldest are forgotten past it
_SHOWN = 200  # characters of the server's message quoted in the error


class InvalidAnswerError(McpServerError):
    """The server answered with something that is not a valid JSON-RPC answer."""


def is_chatter(error: Exception) -> bool:
    """Whether what the transport could not read is plain text (not JSON at all), which is
    ignored, rather than a JSON value of the wrong shape or a message too large to read."""
    if isinstance(error, MessageTooLargeError):
        return False
    if not isinstance(error, ValidationError):
        return True
    return all(problem["type"] == "json_invalid" for problem in error.errors())


def chatter_text(error: Exception) -> str:
    """The start of the plain-text line the server wrote (for its log)."""
    if isinstance(error, ValidationError) and error.error_count():
        line = error.errors()[0].get("input")
        if isinstance(line, str | bytes):
            text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
            return text.strip()[:_SHOWN]
    return str(error).strip().splitlines()[0][:_SHOWN] if str(error).strip() else type(error).__name__


def invalid_message(server: str, error: Exception) -> InvalidAnswerError:
    """The error for a message that is not a JSON-RPC message (``is_chatter`` said it is not text)."""
    if isinstance(error, MessageTooLargeError):
        return _invalid(
            server, str(error), fix="ask the tool for less at a time (a range, a limit or a filter)"
        )
    if not isinstance(error, ValidationError):
        return _invalid(server, str(error))
    value = _input_of(error)
    return _invalid(server, f"{_what_is_wrong(value)}: {_quoted(value)}")


_NOT_MCP = (
    "this program does not speak MCP's JSON-RPC correctly; update it or report it to its authors "
    "(run its command in a terminal to see what it writes)"
)


def _invalid(server: str, what: str, fix: str = _NOT_MCP) -> InvalidAnswerError:
    return InvalidAnswerError(
        server,
        f"MCP server '{server}' sent an invalid answer, so the connection was closed: {what}. Fix: {fix}.",
    )


class SentRequests:
    """The ids of the requests sent to a server and not answered yet, to tell an answer to a
    request that was never sent."""

    def __init__(self, server: str) -> None:
        self._server = server
        self._waiting: dict[Any, None] = {}  # insertion-ordered: the oldest are forgotten first

    def sent(self, message: object) -> None:
        if isinstance(message, mcp_types.JSONRPCRequest):
            self._waiting[_key(message.id)] = None
            if len(self._waiting) > MAX_TRACKED_REQUESTS:
                del self._waiting[next(iter(self._waiting))]

    def check_answer(self, message: object) -> None:
        """Raises:
        InvalidAnswerError: ``message`` answers a request that was never sent (or was answered)."""
        if not isinstance(message, mcp_types.JSONRPCResponse | mcp_types.JSONRPCError) or message.id is None:
            return
        key = _key(message.id)
        if key in self._waiting:
            del self._waiting[key]
            return
        raise _invalid(
            self._server, f"an answer to request id {json.dumps(message.id)[:40]}, which it was never sent"
        )


def _key(request_id: object) -> object:
    if isinstance(request_id, str) and request_id.lstrip("-").isdigit():
        return int(request_id)  # "7" and 7 are one id, as the SDK correlates them
    return request_id


def _input_of(error: Exception) -> Any:
    """The JSON value the server sent, as the validation error quotes it."""
    if isinstance(error, ValidationError):
        for problem in sorted(error.errors(), key=lambda p: len(p["loc"])):
            return problem.get("input")
    return None


def _what_is_wrong(value: Any) -> str:
    if not isinstance(value, Mapping):
        return "a JSON value that is not a JSON-RPC message (not an object)"
    if value.get("jsonrpc") != "2.0":
        return 'a JSON object that is not a JSON-RPC message (no "jsonrpc": "2.0")'
    if "method" not in value and "result" not in value and "error" not in value:
        return 'an answer with neither "result" nor "error"'
    return "a JSON-RPC message of the wrong shape"


def _quoted(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"
