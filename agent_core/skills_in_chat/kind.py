"""Skills as a kind of item the chat carries, registered through the chat's ``chat_item_kinds``
seam: how much of each a request carries, their blocks in the prompt, the tokens listing them all
would cost, and a ``skills.load`` that pulls its skill into the chat and keeps it there."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agent_core.agent.agent import Agent
from agent_core.agent.schema import SelectionConfig
from agent_core.budget.counting import TokenCounter
from agent_core.budget.fitting import Block
from agent_core.chat.item_kinds import ChatItemKind
from agent_core.context.items import ContextManifest, ItemRef, RequestContext, SessionItem
from agent_core.context.skill_disclosure import disclose_skills, skill_readers
from agent_core.context.sources import ContextRequest
from agent_core.plugins import Register
from agent_core.providers.base import ToolCalling
from agent_core.skills_in_chat.blocks import selected_skill_blocks, session_skill_blocks, skills_listed_tokens
from agent_core.skills_in_chat.loads import skill_pull, with_loaded_skill, without_loaded_bodies
from agent_core.store.chats import StoredMessage
from agent_core.tools.runtime import ToolDescriptor

__all__ = ["SkillKind", "register_chat_item_kinds"]


@dataclass(frozen=True)
class SkillKind(ChatItemKind):
    """The agent's skills in a chat."""

    def disclosed(
        self,
        context: RequestContext,
        request: ContextRequest,
        selection: SelectionConfig,
        tool_calling: ToolCalling,
    ) -> RequestContext:
        return disclose_skills(context, request, selection, tool_calling)

    def unroutable(self, agent: Agent, tools: Mapping[ItemRef, ToolDescriptor]) -> dict[ItemRef, str]:
        return skill_readers(agent, tools)

    def system_blocks(self, agent: Agent, context: RequestContext) -> list[Block]:
        return session_skill_blocks(agent, context)

    def message_blocks(
        self, agent: Agent, context: RequestContext, message: str, max_tokens: int, counter: TokenCounter
    ) -> list[Block]:
        return selected_skill_blocks(agent, context, message, max_tokens, counter)

    def with_manifest(
        self, agent: Agent, manifest: ContextManifest, counter: TokenCounter
    ) -> ContextManifest:
        if not agent.skills:
            return manifest
        return replace(manifest, skills_listed_tokens=skills_listed_tokens(agent, counter))

    def pulled(
        self, agent: Agent, server: str, tool: str, arguments: Mapping[str, Any], *, failed: bool
    ) -> ItemRef | None:
        return skill_pull(agent, server, tool, arguments, failed=failed)

    def with_pulled(self, context: RequestContext, ref: ItemRef) -> RequestContext | None:
        return with_loaded_skill(context, ref) if ref.type == "skill" else None

    def keeps_pulled(self, ref: ItemRef) -> bool:
        return ref.type == "skill"  # a loaded skill stays in the chat

    def history_sent(
        self, agent: Agent, history: Sequence[StoredMessage], chat_items: Sequence[SessionItem]
    ) -> list[StoredMessage]:
        return without_loaded_bodies(agent, history, chat_items)


def register_chat_item_kinds(register: Register[ChatItemKind]) -> None:
    """The built-in kind of this package."""
    register("skills", SkillKind())
