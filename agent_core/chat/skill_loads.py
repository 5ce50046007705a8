"""A skill the model loads stays in the chat: ``skills.load`` is a pull (as ``context.read_item``
is), the skill joins the chat's items marked with the message it was loaded for, and it leaves
when a compaction covers that message (or the user removes it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from agent_core.agent.agent import Agent
from agent_core.chat.events import ItemPulled
from agent_core.context.items import ItemRef, RequestContext, RequestItem, SessionItem
from agent_core.context.skill_disclosure import LOADED_NOW_REASON
from agent_core.context.skill_server import LOAD_TOOL, skills_servers
from agent_core.context.skill_source import skill_named
from agent_core.store.chats import StoredMessage

__all__ = ["skill_pull", "still_loaded", "with_loaded_skill"]


def skill_pull(
    agent: Agent | None, server: str, tool: str, arguments: Mapping[str, Any], call_id: str, *, failed: bool
) -> ItemPulled | None:
    """The pull of a skill a successful ``skills.load`` call gave the model; None for any other call."""
    if agent is None or failed or tool != LOAD_TOOL or server not in skills_servers(agent.config):
        return None
    enabled = {name: skill for name, skill in agent.skills.items() if skill.enabled}
    skill = skill_named(enabled, str(arguments.get("name", "")))
    return None if skill is None else ItemPulled(ItemRef("skill", skill.name), call_id)


def with_loaded_skill(context: RequestContext, ref: ItemRef) -> RequestContext:
    """The reply's record once the model loaded ``ref``: its catalogue line became its body (a
    skill already loaded stays as it was)."""
    found = next((item for item in context.items if item.ref == ref), None)
    if found is not None and found.skill_state == "loaded":
        return context
    loaded = RequestItem(
        ref, "agent", found.score if found else None, reason=LOADED_NOW_REASON, skill_state="loaded"
    )
    items = tuple(loaded if item.ref == ref else item for item in context.items)
    return replace(context, items=items if found is not None else (*items, loaded))


def still_loaded(items: Sequence[SessionItem], history: Sequence[StoredMessage]) -> tuple[SessionItem, ...]:
    """``items`` without the skills the model loaded for a message a compaction now covers."""
    covered = max(
        (m.covers_until for m in history if m.role == "summary" and m.covers_until is not None), default=None
    )
    if covered is None:
        return tuple(items)
    return tuple(item for item in items if item.loaded_at is None or item.loaded_at > covered)
