"""The seam through which a kind of context item takes part in a chat beyond being selected: how
much of each of its items a request carries, the tools a routed model must not be handed, the
blocks it adds to the system message and to the message, what it adds to the manifest, the tool
calls that pull one of its items in, and how the history is sent while such an item is kept.

A kind subclasses :class:`ChatItemKind`, overriding only what it adds (every default adds
nothing), and registers through the ``chat_item_kinds`` plug-in registry. The chat asks every
registered kind at each of these points and knows none of them: a new kind needs no change here.

A pulled item a kind keeps (``keeps_pulled``) joins the chat's items marked with the message it was
pulled for (``SessionItem.loaded_at``), and leaves when a compaction covers that message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_core.agent.agent import Agent
from agent_core.agent.schema import SelectionConfig
from agent_core.budget.counting import TokenCounter
from agent_core.budget.fitting import Block
from agent_core.context.items import ContextManifest, ItemRef, RequestContext, SessionItem
from agent_core.context.sources import ContextRequest
from agent_core.plugins import PluginRegistry
from agent_core.providers.base import ToolCalling
from agent_core.store.chats import StoredMessage
from agent_core.tools.runtime import ToolDescriptor

__all__ = [
    "CHAT_ITEM_KINDS",
    "ChatItemKind",
    "chat_item_kinds",
    "disclosed",
    "keeps_pulled",
    "kept_pulls",
    "pulled_refs",
    "recorded_pull",
    "sent_history",
    "still_loaded",
    "unloaded",
    "unroutable_tools",
]


class ChatItemKind:
    """What one kind of context item adds to a chat; each method's default adds nothing."""

    def disclosed(
        self,
        context: RequestContext,
        request: ContextRequest,
        selection: SelectionConfig,
        tool_calling: ToolCalling,
    ) -> RequestContext:
        """``context`` once this kind decided how much of each of its items the request carries
        (for a model that uses tools the ``tool_calling`` way), with the reason in the record."""
        return context

    def unroutable(self, agent: Agent, tools: Mapping[ItemRef, ToolDescriptor]) -> dict[ItemRef, str]:
        """Those of ``tools`` a model that cannot choose tools is never routed to, with why."""
        return {}

    def system_blocks(self, agent: Agent, context: RequestContext) -> list[Block]:
        """Blocks for the system message, after the rules and references: the stable prefix."""
        return []

    def message_blocks(
        self, agent: Agent, context: RequestContext, message: str, max_tokens: int, counter: TokenCounter
    ) -> list[Block]:
        """Blocks that go with ``message``, after the rules and references selected for it;
        ``max_tokens`` is what one selected reference may use."""
        return []

    def with_manifest(
        self, agent: Agent, manifest: ContextManifest, counter: TokenCounter
    ) -> ContextManifest:
        """``manifest`` of the fitted request with what this kind records in it."""
        return manifest

    def pulled(
        self, agent: Agent, server: str, tool: str, arguments: Mapping[str, Any], *, failed: bool
    ) -> ItemRef | None:
        """The item of this kind a finished call of ``tool`` on ``server`` pulled into the reply."""
        return None

    def with_pulled(self, context: RequestContext, ref: ItemRef) -> RequestContext | None:
        """The reply's record once ``ref`` was pulled in; None: recorded as any pulled item is."""
        return None

    def keeps_pulled(self, ref: ItemRef) -> bool:
        """Whether a pulled ``ref`` stays in the chat for later messages (until a compaction
        covers the message it was pulled for)."""
        return False

    def history_sent(
        self, agent: Agent, history: Sequence[StoredMessage], chat_items: Sequence[SessionItem]
    ) -> list[StoredMessage]:
        """``history`` as a request holding ``chat_items`` sends it."""
        return list(history)


# Built-in kinds register by a module:function hook, as third-party ones do through the entry-point
# group contextdesk.chat_item_kinds; the chat imports none of them (import-linter:
# chat-knows-no-feature).
CHAT_ITEM_KINDS: PluginRegistry[ChatItemKind] = PluginRegistry(
    "chat_item_kinds",
    noun="chat item kind",
    builtins=("agent_core.skills_in_chat.kind:register_chat_item_kinds",),
)


def chat_item_kinds() -> tuple[ChatItemKind, ...]:
    """Every registered kind: the built-ins first, then plug-ins."""
    return tuple(kind for _name, kind in CHAT_ITEM_KINDS.plugins())


def disclosed(
    context: RequestContext, request: ContextRequest, selection: SelectionConfig, tool_calling: ToolCalling
) -> RequestContext:
    """``context`` once every kind decided how much of each of its items the request carries."""
    for kind in chat_item_kinds():
        context = kind.disclosed(context, request, selection, tool_calling)
    return context


def unroutable_tools(agent: Agent, tools: Mapping[ItemRef, ToolDescriptor]) -> dict[ItemRef, str]:
    """The tools every kind says a model that cannot choose tools is never routed to, with why."""
    return {ref: why for kind in chat_item_kinds() for ref, why in kind.unroutable(agent, tools).items()}


def pulled_refs(
    agent: Agent | None, server: str, tool: str, arguments: Mapping[str, Any], *, failed: bool
) -> list[ItemRef]:
    """The items a finished call of ``tool`` on ``server`` pulled into the reply, by every kind."""
    if agent is None:
        return []
    found = (kind.pulled(agent, server, tool, arguments, failed=failed) for kind in chat_item_kinds())
    return [ref for ref in found if ref is not None]


def recorded_pull(context: RequestContext, ref: ItemRef) -> RequestContext | None:
    """The reply's record once ``ref`` was pulled in, as its kind records it; None: as any pulled
    item is recorded."""
    found = (kind.with_pulled(context, ref) for kind in chat_item_kinds())
    return next((recorded for recorded in found if recorded is not None), None)


def keeps_pulled(ref: ItemRef) -> bool:
    """Whether a pulled ``ref`` stays in the chat for later messages."""
    return any(kind.keeps_pulled(ref) for kind in chat_item_kinds())


def sent_history(
    agent: Agent, history: Sequence[StoredMessage], chat_items: Sequence[SessionItem]
) -> list[StoredMessage]:
    """``history`` as a request holding ``chat_items`` sends it, every kind having had its say."""
    sent = list(history)
    for kind in chat_item_kinds():
        sent = kind.history_sent(agent, sent, chat_items)
    return sent


def kept_pulls(agent: Agent, history: Sequence[StoredMessage]) -> dict[ItemRef, int]:
    """The items the replies in ``history`` pulled in and kept, each with the user's message it
    was last pulled for (as ``SessionItem.loaded_at`` marks it), read back from their tool calls."""
    found: dict[ItemRef, int] = {}
    asked: int | None = None
    for message in history:
        if message.role == "user":
            asked = message.id
        elif asked is not None:
            for record in message.tool_calls:
                failed = record.is_error or record.elapsed_seconds is None  # failed, denied, interrupted
                for ref in pulled_refs(agent, record.server, record.tool, record.arguments, failed=failed):
                    if keeps_pulled(ref):
                        found[ref] = asked
    return found


def unloaded(items: Sequence[SessionItem], covers_until: int | None) -> tuple[SessionItem, ...]:
    """``items`` without those pulled in for a message up to ``covers_until`` (the last message a
    compaction summarized)."""
    if covers_until is None:
        return tuple(items)
    return tuple(item for item in items if item.loaded_at is None or item.loaded_at > covers_until)


def still_loaded(items: Sequence[SessionItem], history: Sequence[StoredMessage]) -> tuple[SessionItem, ...]:
    """``items`` without those pulled in for a message a compaction in ``history`` covers."""
    covered = max(
        (m.covers_until for m in history if m.role == "summary" and m.covers_until is not None), default=None
    )
    return unloaded(items, covered)
