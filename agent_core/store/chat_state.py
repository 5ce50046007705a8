"""What one chat keeps besides its messages and items: settings changed for it alone, tools the
user allowed for it, and MCP resources attached to it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_core.context.items import ItemRef

__all__ = ["AttachedResource", "ChatOverrides"]


@dataclass(frozen=True)
class ChatOverrides:
    """Settings changed for this chat only, by snake_case field name, over the agent's own.

    Partial on purpose: a field the chat does not override follows the agent file as it changes.
    """

    chat: Mapping[str, Any] = field(default_factory=dict)  # ChatDefaults fields
    selection: Mapping[str, Any] = field(default_factory=dict)  # SelectionConfig fields
    context: Mapping[str, Any] = field(default_factory=dict)  # ContextConfig fields
    memory: Mapping[str, Any] = field(default_factory=dict)  # MemoryConfig fields


@dataclass(frozen=True)
class AttachedResource:
    """An MCP resource attached to a chat as a reference, kept as it last read (see
    ``agent_core.chat.attached_updates``)."""

    server: str
    uri: str
    text: str
    title: str = ""
    # Kept current by a subscription: the server's update count last read, and how many times
    # the text changed since it was attached (View Context says so).
    seen_version: int | None = None
    updates: int = 0

    @property
    def ref(self) -> ItemRef:
        return ItemRef("reference", self.uri, self.server)
