"""How much of each skill one request carries (progressive disclosure), decided with the
RequestContext so the record says it.

- A skill selected for the message: its catalogue line only (``catalogue``); the model loads the
  body with the ``skills`` server's ``load`` tool when the task needs it.
- A skill that is ``always`` on, that the user added, or that the model loaded earlier in the chat:
  its body (``loaded``).
- A model that cannot load a skill (it cannot call tools, or the ``skills`` server is off): the best
  selected skill's body comes inline (``inline``) when it scores at least ``skillInlineScore``; the
  other selected skills are left out, as near-misses saying why (a line it cannot act on is noise).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from agent_core.agent.agent import Agent
from agent_core.agent.schema import SelectionConfig
from agent_core.context.items import ItemRef, NearMiss, RequestContext, RequestItem, SessionItem
from agent_core.context.skill_server import LOAD_TOOL, skills_servers
from agent_core.context.sources import ContextRequest
from agent_core.tools.runtime import ToolDescriptor
from indexer import asks_what_one_thing_is

__all__ = [
    "ADDED_REASON",
    "ALWAYS_REASON",
    "INLINE_REASON",
    "LOADED_EARLIER_REASON",
    "LOADED_NOW_REASON",
    "MATCHED_REASON",
    "disclose_skills",
    "disclosed_skills",
    "skill_readers",
]

ALWAYS_REASON = "always on in this agent"
ADDED_REASON = "added by you"
LOADED_EARLIER_REASON = "loaded by the model earlier in this chat"
LOADED_NOW_REASON = "loaded by the model (skills.load)"
INLINE_REASON = "the model cannot call tools, so the best skill's instructions came inline"
#: Why a selected skill is in when selection matched its own words (its name and description).
MATCHED_REASON = "its description matched the message"
_NOT_BEST = "the model cannot load skills (no tool calls), and only the best one comes inline"
_BELOW_INLINE = (
    "below skillInlineScore, the score a skill needs to come inline for a model that cannot call tools"
)
#: A skill's instructions are for doing something; "what's git" asks to know what a thing is, and
#: a small model given a procedure for such a question recites it instead of answering.
_ONE_THING = "the message asks what a thing is, and a skill's instructions are for doing something"


def disclosed_skills(
    context: RequestContext,
    chat_items: Sequence[SessionItem],
    config: SelectionConfig,
    *,
    can_load: bool,
    asks_what_a_thing_is: bool = False,
) -> RequestContext:
    """``context`` with every skill's state and reason set, and for a model that cannot load
    skills, only the one that comes inline (the others become near-misses); none comes inline for
    a message that ``asks_what_a_thing_is`` ("what's git")."""
    loaded_at = {item.ref: item.loaded_at for item in chat_items}
    selected = [i for i in context.items if i.ref.type == "skill" and i.include_mode == "agent"]
    inline: ItemRef | None = None
    misses: list[NearMiss] = []
    if not can_load and selected:
        best = max(selected, key=lambda i: i.score or 0.0)
        if (best.score or 0.0) >= config.skill_inline_score and not asks_what_a_thing_is:
            inline = best.ref
        for item in selected:
            if item.ref == inline:
                continue
            below = item is best and not asks_what_a_thing_is
            reason = _ONE_THING if asks_what_a_thing_is else _BELOW_INLINE if below else _NOT_BEST
            misses.append(
                NearMiss(item.ref, item.score, reason, config.skill_inline_score if below else None)
            )
    items: list[RequestItem] = []
    for item in context.items:
        if item.ref.type != "skill":
            items.append(item)
        elif item.include_mode == "agent":
            why = item.reason or MATCHED_REASON
            if can_load:
                items.append(replace(item, skill_state="catalogue", reason=why))
            elif item.ref == inline:
                items.append(replace(item, skill_state="inline", reason=f"{why}; {INLINE_REASON}"))
        else:
            items.append(replace(item, skill_state="loaded", reason=_session_reason(item, loaded_at)))
    notes = context.notes
    if not can_load and selected:
        note = (
            f"the model cannot load skills, so {inline.name}'s instructions came inline"
            if inline is not None
            else "the model cannot load skills, and the message asks what a thing is: no skill came inline"
            if asks_what_a_thing_is
            else "the model cannot load skills, and no selected skill scored skillInlineScore to come inline"
        )
        notes = replace(notes, skills=note)
    return replace(context, items=tuple(items), near_misses=(*context.near_misses, *misses), notes=notes)


def _session_reason(item: RequestItem, loaded_at: dict[ItemRef, int | None]) -> str:
    if item.include_mode == "always":
        return ALWAYS_REASON
    return LOADED_EARLIER_REASON if loaded_at.get(item.ref) is not None else ADDED_REASON


def disclose_skills(
    context: RequestContext, request: ContextRequest, config: SelectionConfig, tool_calling: str
) -> RequestContext:
    """:func:`disclosed_skills` for the request a chat builds: the model can load a skill when it
    calls tools itself and a ``skills`` server's ``load`` tool is in the request."""
    if not any(item.ref.type == "skill" for item in context.items):
        return context
    servers = skills_servers(request.agent.config)
    can_load = tool_calling == "native" and any(
        item.ref.server in servers and item.ref.name == LOAD_TOOL for item in context.of_type("tool")
    )
    return disclosed_skills(
        context,
        request.chat_items,
        config,
        can_load=can_load,
        asks_what_a_thing_is=asks_what_one_thing_is(request.message),
    )


def skill_readers(agent: Agent, tools: Mapping[ItemRef, ToolDescriptor]) -> dict[ItemRef, str]:
    """The ``skills`` server's tools a model that cannot choose tools is never routed to: each
    takes a name or a query it would have to invent, and the best skill reaches it inline."""
    servers = skills_servers(agent.config)
    why = "a model that cannot choose tools gets the best skill's instructions inline (skillInlineScore)"
    return {ref: why for ref in tools if ref.server in servers}
