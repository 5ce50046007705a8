"""The exact request a model turn sent, kept with its reply for View Context's "Show exact request".

What is kept is the provider-neutral request ContextDesk hands to the provider (system prompt,
history, the message with its items, this reply's earlier turns, tool definitions, settings); each
provider then puts it in its own API's format. Credentials are masked before it is written, and
the longest parts are shortened so that one record stays bounded, with a marker where text was
left out.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from agent_core.content_parts import decoded_size, human_size
from agent_core.providers.base import ChatMessage, ChatRequest, ToolSpec
from agent_core.redaction import HIDDEN, redact_credentials

__all__ = ["MAX_KEPT_CHARACTERS", "SentMessage", "SentRequest", "SentTool", "SentToolCall", "sent_request"]

#: A kept request holds at most about this many characters of message text and tool schemas.
MAX_KEPT_CHARACTERS = 400_000
LEFT_OUT = "\n[… {count:,} characters left out of this record …]\n"
# Known secret values shorter than this are not searched for: they would mask ordinary words.
_MIN_SECRET_LENGTH = 8

_Mask = Callable[[str], str]


@dataclass(frozen=True)
class SentToolCall:
    id: str
    name: str
    arguments: str  # JSON, as sent


@dataclass(frozen=True)
class SentMessage:
    role: str
    content: str
    tool_calls: tuple[SentToolCall, ...] = ()
    tool_call_id: str | None = None
    tool_name: str | None = None
    is_error: bool = False
    images: tuple[str, ...] = ()  # tool results: each image passed to the model, as "image/png, 3.9 KB"


@dataclass(frozen=True)
class SentTool:
    name: str
    description: str
    input_schema: str  # JSON, as sent


@dataclass(frozen=True)
class SentRequest:
    """One model turn's request as sent, credentials masked."""

    model: str  # provider:model
    max_output_tokens: int
    temperature: float
    top_p: float
    messages: tuple[SentMessage, ...]
    tools: tuple[SentTool, ...] = ()
    call_tool: str | None = None  # routed models: the one tool the model had to call
    characters_left_out: int = 0  # shortened to keep the record bounded (marked in the text)

    def as_text(self) -> str:
        """The request as plain text: settings, each message in order, then the tool definitions."""
        lines = [
            f"Model {self.model} · max output tokens {self.max_output_tokens:,} · "
            f"temperature {self.temperature:g} · top_p {self.top_p:g}",
            f"{_count(len(self.messages), 'message')} · {_count(len(self.tools), 'tool definition')}",
        ]
        if self.call_tool:
            lines.append(f"The model had to call {self.call_tool} and was asked only for its arguments.")
        for number, message in enumerate(self.messages, start=1):
            lines += ["", _heading(f"{number}. {_describe(message)}"), message.content]
            for call in message.tool_calls:
                lines.append(f"→ calls {call.name} (call {call.id}) with {call.arguments}")
            for number, image in enumerate(message.images, start=1):
                lines.append(f"+ image {number} passed to the model ({image})")
        if self.tools:
            lines += ["", _heading("Tool definitions")]
            for tool in self.tools:
                lines += ["", f"{tool.name}: {tool.description}", tool.input_schema]
        return "\n".join(lines) + "\n"


def sent_request(request: ChatRequest, model_ref: str, *, secrets: Iterable[str | None] = ()) -> SentRequest:
    """What to keep of ``request``: ``secrets`` (the provider's key and header values) and every
    credential :func:`redact_credentials` recognises are masked; long parts are shortened to keep
    it within :data:`MAX_KEPT_CHARACTERS`."""
    known = sorted({s for s in secrets if s and len(s) >= _MIN_SECRET_LENGTH}, key=len, reverse=True)

    def mask(text: str) -> str:
        for secret in known:
            text = text.replace(secret, HIDDEN)
        return redact_credentials(text)

    messages = [_message(m, mask) for m in request.messages]
    tools = [_tool(t, mask) for t in request.tools]
    texts = [m.content for m in messages] + [t.input_schema for t in tools]
    kept, left_out = _bounded(texts, MAX_KEPT_CHARACTERS)
    contents, schemas = kept[: len(messages)], kept[len(messages) :]
    messages = [replace(m, content=text) for m, text in zip(messages, contents, strict=True)]
    tools = [replace(t, input_schema=text) for t, text in zip(tools, schemas, strict=True)]
    settings = request.settings
    return SentRequest(
        model=model_ref,
        max_output_tokens=settings.max_output_tokens,
        temperature=settings.temperature,
        top_p=settings.top_p,
        messages=tuple(messages),
        tools=tuple(tools),
        call_tool=request.call_tool,
        characters_left_out=left_out,
    )


def _message(message: ChatMessage, mask: _Mask) -> SentMessage:
    calls = tuple(
        SentToolCall(call.id, call.name, mask(json.dumps(dict(call.arguments), ensure_ascii=False)))
        for call in message.tool_calls
    )
    images = tuple(f"{image.mime_type}, {human_size(decoded_size(image.data))}" for image in message.images)
    return SentMessage(
        message.role,
        mask(message.content),
        calls,
        message.tool_call_id,
        message.tool_name,
        message.is_error,
        images,
    )


def _tool(spec: ToolSpec, mask: _Mask) -> SentTool:
    schema = json.dumps(dict(spec.input_schema), ensure_ascii=False, indent=2)
    return SentTool(spec.name, mask(spec.description), mask(schema))


def _bounded(texts: Sequence[str], limit: int) -> tuple[list[str], int]:
    """``texts`` shortened to about ``limit`` characters in all: the longest are cut to one common
    length (keeping their start and end, with a marker), the others are kept whole."""
    if sum(len(t) for t in texts) <= limit:
        return list(texts), 0
    cap = _common_length(sorted(len(t) for t in texts), limit)
    kept, left_out = [], 0
    for text in texts:
        if len(text) <= cap:
            kept.append(text)
            continue
        head = cap * 2 // 3
        count = len(text) - cap
        kept.append(text[:head] + LEFT_OUT.format(count=count) + text[len(text) - (cap - head) :])
        left_out += count
    return kept, left_out


def _common_length(sizes: Sequence[int], limit: int) -> int:
    """The largest length ``c`` with ``sum(min(size, c)) <= limit`` (``sizes`` ascending)."""
    remaining = limit
    for index, size in enumerate(sizes):
        share = remaining // (len(sizes) - index)
        if size > share:
            return share
        remaining -= size
    return sizes[-1] if sizes else 0


def _describe(message: SentMessage) -> str:
    if message.role != "tool":
        return message.role
    failed = ", failed" if message.is_error else ""
    return f"tool result of {message.tool_name or 'a tool'} (call {message.tool_call_id}{failed})"


def _heading(title: str) -> str:
    return f"── {title} " + "─" * max(3, 72 - len(title))


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
