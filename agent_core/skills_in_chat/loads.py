"""A skill the model loads stays in the chat: ``skills.load`` is a pull (as ``context.read_item``
is), the skill joins the chat's items marked with the message it was loaded for, and it leaves
when a compaction covers that message (or the user removes it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from agent_core.agent.agent import Agent
from agent_core.context.items import ItemRef, RequestContext, RequestItem, SessionItem
from agent_core.context.skill_disclosure import LOADED_NOW_REASON
from agent_core.context.skill_server import LOAD_TOOL, skills_servers
from agent_core.context.skill_source import skill_named
from agent_core.store.chats import StoredMessage

__all__ = ["LOADED_RESULT", "skill_pull", "with_loaded_skill", "without_loaded_bodies"]

#: What an earlier ``skills.load`` result reads once its skill's body is in the system message.
LOADED_RESULT = "The instructions of skill {name} are in the system message (<skills>) while it stays loaded."


def skill_pull(
    agent: Agent, server: str, tool: str, arguments: Mapping[str, Any], *, failed: bool
) -> ItemRef | None:
    """The skill a successful ``skills.load`` call gave the model; None for any other call."""
    if failed or tool != LOAD_TOOL or server not in skills_servers(agent.config):
        return None
    enabled = {name: skill for name, skill in agent.skills.items() if skill.enabled}
    skill = skill_named(enabled, str(arguments.get("name", "")))
    return None if skill is None else ItemRef("skill", skill.name)


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


def without_loaded_bodies(
    agent: Agent, history: Sequence[StoredMessage], items: Sequence[SessionItem]
) -> list[StoredMessage]:
    """``history`` with the results of earlier ``skills.load`` calls shortened to a pointer when
    their skill is loaded in the chat: its body is in the system message, and sending it twice
    would double what the skill costs every request."""
    loaded = {item.ref.name for item in items if item.ref.type == "skill" and item.loaded_at is not None}
    if not loaded:
        return list(history)
    servers = skills_servers(agent.config)
    out = []
    for message in history:
        calls = tuple(
            replace(record, result=LOADED_RESULT.format(name=name))
            if record.server in servers
            and record.tool == LOAD_TOOL
            and not record.is_error
            and (skill := skill_named(agent.skills, str(record.arguments.get("name", "")))) is not None
            and (name := skill.name) in loaded
            else record
            for record in message.tool_calls
        )
        out.append(replace(message, tool_calls=calls) if calls != message.tool_calls else message)
    return out
