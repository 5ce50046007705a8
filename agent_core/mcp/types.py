"""Plain values the MCP client hands to the rest of the core: statuses, tools, results."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Protocol

from agent_core.agent.schema import IncludeMode
from agent_core.content_parts import ContentPart
from agent_core.tools.hints import ToolAnnotations

__all__ = [
    "ContentPart",
    "PromptArgument",
    "PromptInfo",
    "PromptMessage",
    "PromptResult",
    "ResourceContent",
    "ResourceInfo",
    "ResourcePart",
    "ServerState",
    "ServerStatus",
    "ToolAnnotations",
    "ToolDescription",
    "ToolInfo",
    "ToolPermission",
    "ToolResult",
    "ToolUi",
    "tool_fingerprint",
]

ToolPermission = Literal["ask", "allow"]


class ServerState(StrEnum):
    """Where a configured MCP server is in its life."""

    STARTING = "starting"
    READY = "ready"
    FAILED = "failed"  # see ServerStatus.reason
    DISABLED = "disabled"  # enabled: false in agent.yaml
    STOPPED = "stopped"  # stopped on purpose, or never started
    UNTRUSTED = "not trusted"  # not started until the user trusts it (agent_core.agent.server_trust)


@dataclass(frozen=True)
class ServerStatus:
    """A snapshot of one server: its state, what it said about itself and its last log lines."""

    name: str
    transport: str
    state: ServerState
    reason: str | None = None  # why it failed, and how to fix it; for a ready server, a warning
    server_name: str | None = None  # as the server reports itself
    server_version: str | None = None
    protocol_version: str | None = None
    instructions: str | None = None
    tool_count: int = 0
    log_tail: tuple[str, ...] = ()


@dataclass(frozen=True)
class ToolUi:
    """What a tool's ``_meta.ui`` says (MCP Apps): the ``ui://`` resource its results are shown in,
    and who may call it: ``model`` (offered to the chat's model), ``app`` (callable from a view of
    its own server). Parsed from untrusted metadata: see ``agent_core.mcp.apps.meta``."""

    resource_uri: str | None = None
    visibility: frozenset[str] = frozenset({"model", "app"})

    @property
    def for_model(self) -> bool:
        return "model" in self.visibility

    @property
    def for_app(self) -> bool:
        return "app" in self.visibility


@dataclass(frozen=True)
class ToolInfo:
    """A tool as a context item: where it comes from, what it takes, and how the chat treats it."""

    server: str
    name: str
    description: str
    input_schema: Mapping[str, Any]
    include: IncludeMode
    permission_required: bool
    title: str | None = None
    annotations: ToolAnnotations = field(default_factory=ToolAnnotations)
    output_schema: Mapping[str, Any] | None = None
    task_support: str | None = None  # "required": the server runs each call as a task
    asks_every_call: bool = False  # asked about before every call, whatever the chat's policy
    ui: ToolUi | None = None  # an MCP Apps tool: its UI resource and visibility

    @property
    def permission(self) -> ToolPermission:
        return "ask" if self.permission_required else "allow"

    @property
    def fingerprint(self) -> str:
        return tool_fingerprint(self.server, self)


class ToolDescription(Protocol):
    """What a tool's embedding is made of (a ``ToolInfo``, or the SDK's ``Tool``)."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str | None: ...
    @property
    def input_schema(self) -> Mapping[str, Any]: ...


def tool_fingerprint(server: str, tool: ToolDescription) -> str:
    """A hash of what makes a tool's embedding: server, name, description and canonical schema.

    The indexer caches tool embeddings by it, so a server update re-indexes only changed tools.
    """
    canonical = json.dumps(
        [server, tool.name, tool.description or "", tool.input_schema],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ToolResult:
    """What a tool call gave back. Errors (from the tool, the server or the connection) are results too."""

    server: str
    tool: str
    text: str
    is_error: bool
    elapsed_seconds: float
    structured: Mapping[str, Any] | None = None
    content: tuple[ContentPart, ...] = ()
    # Why ``structured`` does not match the tool's output schema; None when it does (or has none).
    structured_problem: str | None = None
    ui_resource_uri: str | None = None  # the tool's UI (MCP Apps) when it was called
    # How the call ended when its tool gave no answer ("timed out after 8 s", "failed: ..."): the
    # text is then ContextDesk's message, not the tool's. Empty when the tool answered.
    ended: str = ""


@dataclass(frozen=True)
class ResourceInfo:
    server: str
    uri: str
    name: str
    description: str = ""
    mime_type: str | None = None
    title: str | None = None
    size: int | None = None


@dataclass(frozen=True)
class ResourcePart:
    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob: str | None = None  # base64
    meta: Mapping[str, Any] | None = None  # the part's ``_meta``, as the server sent it (untrusted)


@dataclass(frozen=True)
class ResourceContent:
    """A resource as read; ``text`` joins its text parts, for attaching to a chat as a reference."""

    server: str
    uri: str
    parts: tuple[ResourcePart, ...] = ()

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.parts if p.text is not None)


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class PromptInfo:
    server: str
    name: str
    description: str = ""
    title: str | None = None
    arguments: tuple[PromptArgument, ...] = ()


@dataclass(frozen=True)
class PromptMessage:
    role: Literal["user", "assistant"]
    content: ContentPart


@dataclass(frozen=True)
class PromptResult:
    """A prompt filled in by its server; ``text`` is what a front end puts in the message box."""

    server: str
    name: str
    description: str = ""
    messages: tuple[PromptMessage, ...] = field(default=())

    @property
    def text(self) -> str:
        return "\n\n".join(m.content.describe() for m in self.messages)
