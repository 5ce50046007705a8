"""What the chat store reads and writes: sessions, messages, tool calls and search hits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_core.content_parts import ContentPart
from agent_core.context.items import ItemRef, RequestContext, SessionItem
from agent_core.store.chat_state import AttachedResource, ChatOverrides

__all__ = [
    "Approval",
    "ChildLink",
    "MessageRole",
    "MessageStatus",
    "SearchHit",
    "StoredMessage",
    "StoredSession",
    "ToolCallRecord",
]

MessageRole = Literal["user", "assistant", "tool", "error", "summary"]
# streaming: being written now; partial: the reply stopped early (crash, kill, cancel, error).
MessageStatus = Literal["complete", "streaming", "partial", "cancelled", "error"]
Approval = Literal["auto", "allowed_once", "allowed_for_chat", "denied"]


@dataclass(frozen=True)
class ToolCallRecord:
    id: str
    server: str
    tool: str
    arguments: Mapping[str, Any]
    result: str = ""
    is_error: bool = False
    elapsed_seconds: float | None = None
    approval: Approval | None = None
    # What the result held beyond its text, for the chat to show (the model reads ``result``):
    # structured content, why it does not match the tool's output schema, and the non-text parts.
    structured: Mapping[str, Any] | None = None
    structured_problem: str | None = None
    parts: tuple[ContentPart, ...] = ()
    # The tool's UI (an MCP App ``ui://`` resource) when it was called: the chat can show it again.
    ui_resource_uri: str | None = None
    # How the call ended when its tool gave no answer ("timed out after 8 s", "failed: ...",
    # "was stopped"): ``result`` is then ContextDesk's message. Empty when the tool answered.
    ended: str = ""


@dataclass(frozen=True)
class StoredMessage:
    id: int
    session_id: str
    role: MessageRole
    content: str
    status: MessageStatus
    created_at: float
    request_context: RequestContext | None = None
    tool_calls: tuple[ToolCallRecord, ...] = ()
    tool_call_id: str | None = None
    error: str | None = None
    covers_until: int | None = None  # summaries: the last message id they stand for
    replaced: bool = False  # a newer answer (regenerate) or an edited message took its place
    # The message before it in its conversation: 0 for a chat's first message, None for messages
    # saved before edits kept branches. Versions of an edited message share it.
    parent_id: int | None = None
    aside: int = 0  # > 0: on a branch an edit or a switch set aside (which one: see ``branches``)


@dataclass(frozen=True)
class ChildLink:
    """Where a sub-agent's chat came from: the parent chat, its message and the tool call."""

    session_id: str
    message_id: int | None
    call_id: str
    subagent: str


@dataclass(frozen=True)
class StoredSession:
    id: str
    title: str
    agent_path: str
    created_at: float
    updated_at: float
    context_items: tuple[SessionItem, ...] = ()
    # Items the user removed; always-mode tools that appear later stay out of this chat.
    excluded_items: tuple[ItemRef, ...] = ()
    overrides: ChatOverrides = field(default_factory=ChatOverrides)
    allowed_tools: tuple[ItemRef, ...] = ()  # tools the user allowed for the rest of this chat
    attached_resources: tuple[AttachedResource, ...] = ()
    parent: ChildLink | None = None  # set on a sub-agent's chat


@dataclass(frozen=True)
class SearchHit:
    session_id: str
    session_title: str
    message_id: int
    role: MessageRole
    snippet: str


# A lease not refreshed by a write for this long is taken over even if its program still runs.
