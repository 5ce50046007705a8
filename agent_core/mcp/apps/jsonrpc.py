"""The view's side of the wire: one JSON-RPC 2.0 message checked (shape and size), answers and
errors built, and ContextDesk's results put back into the MCP shapes a view expects."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent_core.content_parts import ContentPart
from agent_core.mcp.types import ResourceContent
from agent_core.store.records import ToolCallRecord
from agent_core.tools.runtime import RichOutcome, ToolOutcome

__all__ = [
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "REFUSED",
    "BadMessage",
    "Incoming",
    "error_answer",
    "parse_message",
    "resource_result",
    "result_answer",
    "tool_result",
]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
REFUSED = -32000  # the spec's "implementation-defined" error: denied, refused, limited

RequestId = str | int


@dataclass(frozen=True)
class Incoming:
    """One well-formed message: a request (``id`` set), a notification (no ``id``), or a response
    to the host's own request (``method`` empty, ``id`` set)."""

    method: str
    params: Mapping[str, Any]
    id: RequestId | None = None
    is_response: bool = False


class BadMessage(Exception):
    """A message that is not JSON-RPC 2.0, or is too big; ``answer`` is the error to send back
    (with a null id when the message's own could not be read, as JSON-RPC says)."""

    def __init__(self, code: int, message: str, request_id: RequestId | None = None) -> None:
        super().__init__(message)
        self.answer = error_answer(request_id, code, message)


def parse_message(message: Mapping[str, Any] | str, max_chars: int) -> Incoming:
    """``message`` checked: JSON text (at most ``max_chars``) or an already parsed object.

    Raises:
        BadMessage: it is not a JSON-RPC 2.0 message, or is too big.
    """
    if isinstance(message, str):
        if len(message) > max_chars:
            raise BadMessage(INVALID_REQUEST, f"The message is over {max_chars:,} characters.")
        try:
            message = json.loads(message)
        except (json.JSONDecodeError, RecursionError) as error:
            raise BadMessage(PARSE_ERROR, f"The message is not JSON: {error}") from None
        if not isinstance(message, Mapping):
            raise BadMessage(INVALID_REQUEST, "The message is not a JSON-RPC object.")
    elif not isinstance(message, Mapping):
        raise BadMessage(INVALID_REQUEST, "The message is not a JSON-RPC object.")
    else:
        try:
            size = len(json.dumps(message, default=str))
        except (TypeError, ValueError, RecursionError):
            raise BadMessage(INVALID_REQUEST, "The message cannot be read as JSON.") from None
        if size > max_chars:
            raise BadMessage(INVALID_REQUEST, f"The message is over {max_chars:,} characters.", _id(message))
    request_id = _id(message)
    if message.get("jsonrpc") != "2.0":
        raise BadMessage(INVALID_REQUEST, 'The message is not JSON-RPC 2.0 ("jsonrpc": "2.0").', request_id)
    method = message.get("method")
    if method is None and request_id is not None and ("result" in message or "error" in message):
        return Incoming("", {}, request_id, is_response=True)
    if not isinstance(method, str) or not method or len(method) > 200:
        raise BadMessage(INVALID_REQUEST, "The message has no method.", request_id)
    if "id" in message and request_id is None:
        raise BadMessage(INVALID_REQUEST, "The request's id is not a string or an integer.")
    params = message.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, Mapping):
        raise BadMessage(INVALID_PARAMS, f"The params of {method} are not an object.", request_id)
    return Incoming(method, params, request_id)


def _id(message: Mapping[str, Any]) -> RequestId | None:
    value = message.get("id")
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    return value if not isinstance(value, str) or len(value) <= 200 else None


def result_answer(request_id: RequestId, result: Mapping[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": dict(result)}


def error_answer(request_id: RequestId | None, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def tool_result(outcome: ToolOutcome | ToolCallRecord) -> dict[str, Any]:
    """A tool's outcome (or a saved call's record) as the MCP ``CallToolResult`` a view reads."""
    if isinstance(outcome, ToolCallRecord):
        text, is_error = outcome.result, outcome.is_error
        parts, structured = outcome.parts, outcome.structured
    elif isinstance(outcome, RichOutcome):
        text, is_error = outcome.text, outcome.is_error
        parts, structured = tuple(p for p in outcome.content if p.type != "text"), outcome.structured
        texts = [p.text or "" for p in outcome.content if p.type == "text"]
        text = "\n".join(texts) if texts else ("" if parts or structured is not None else outcome.text)
    else:
        text, is_error, parts, structured = outcome.text, outcome.is_error, (), None
    content = [{"type": "text", "text": text}] if text else []
    content += [block for part in parts if (block := _content_block(part)) is not None]
    result: dict[str, Any] = {"content": content, "isError": is_error}
    if structured is not None:
        result["structuredContent"] = dict(structured)
    return result


def _content_block(part: ContentPart) -> dict[str, Any] | None:
    if part.type == "text":
        return {"type": "text", "text": part.text or ""}
    if part.type in ("image", "audio"):
        if part.data is None:
            return None  # too big to keep: the view gets the rest
        return {
            "type": part.type,
            "data": part.data,
            "mimeType": part.mime_type or "application/octet-stream",
        }
    if part.type == "resource_link":
        return {"type": "resource_link", "uri": part.uri or "", "name": part.text or part.uri or ""}
    resource: dict[str, Any] = {"uri": part.uri or ""}
    if part.mime_type:
        resource["mimeType"] = part.mime_type
    if part.text is not None:
        resource["text"] = part.text
    elif part.data is not None:
        resource["blob"] = part.data
    else:
        return None
    return {"type": "resource", "resource": resource}


def resource_result(content: ResourceContent) -> dict[str, Any]:
    """A resource as read, in the ``ReadResourceResult`` shape."""
    contents = []
    for part in content.parts:
        entry: dict[str, Any] = {"uri": part.uri}
        if part.mime_type:
            entry["mimeType"] = part.mime_type
        if part.text is not None:
            entry["text"] = part.text
        else:
            entry["blob"] = part.blob or ""
        contents.append(entry)
    return {"contents": contents}
