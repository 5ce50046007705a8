"""The session level of context: what a chat holds, and what is left for per-message selection."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from agent_core.agent.agent import Agent
from agent_core.agent.items import DocumentKind
from agent_core.agent.schema import IncludeMode
from agent_core.context.items import ItemRef, SessionItem
from agent_core.context.selection import Candidate
from agent_core.context.sources import ContextRequest, candidates_from
from agent_core.tools.runtime import ToolDescriptor

__all__ = [
    "MENTION",
    "agent_candidates",
    "effective_session_items",
    "initial_session_items",
    "mentioned_items",
]

# @rule:name or @ref:name (also @reference:name) in a message adds that item to the chat.
MENTION = re.compile(r"(?<![\w@])@(rule|ref|reference):([A-Za-z0-9][A-Za-z0-9_-]{0,79})")


def initial_session_items(agent: Agent, tools: Sequence[ToolDescriptor]) -> tuple[SessionItem, ...]:
    """Every ``always`` rule, reference, enabled skill and (available) tool, as a new chat starts
    with them."""
    items = [
        SessionItem(ItemRef(doc.kind, doc.name), "always")
        for docs in (agent.rules, agent.references)
        for doc in docs.values()
        if doc.include is IncludeMode.ALWAYS
    ]
    items += [
        SessionItem(ItemRef("skill", skill.name), "always")
        for skill in agent.skills.values()
        if skill.include is IncludeMode.ALWAYS and skill.enabled
    ]
    items += [
        SessionItem(ItemRef("tool", tool.name, tool.server), "always")
        for tool in tools
        if tool.include is IncludeMode.ALWAYS
    ]
    return tuple(items)


def effective_session_items(
    stored: Iterable[SessionItem],
    excluded: Iterable[ItemRef],
    agent: Agent,
    tools: Sequence[ToolDescriptor],
    attached: Iterable[ItemRef] = (),
) -> tuple[SessionItem, ...]:
    """The chat's items now: what it holds that still exists, plus always-mode tools of servers
    that became ready after the chat started, minus what the user removed."""
    excluded_set = set(excluded)
    attached_set = set(attached)
    available_tools = {ItemRef("tool", t.name, t.server): t for t in tools}
    out: dict[ItemRef, SessionItem] = {}
    for item in stored:
        exists = item.ref in attached_set or _exists(item.ref, agent, available_tools)
        if item.ref in excluded_set or not exists:
            continue
        out.setdefault(item.ref, item)
    for ref, tool in available_tools.items():
        if tool.include is IncludeMode.ALWAYS and ref not in excluded_set:
            out.setdefault(ref, SessionItem(ref, "always"))
    return tuple(out.values())


def agent_candidates(
    agent: Agent, session_items: Iterable[SessionItem], tools: Sequence[ToolDescriptor]
) -> list[Candidate]:
    """Agent-mode items not already in the chat: what per-message selection chooses from."""
    request = ContextRequest(
        agent=agent, message="", previous_message=None, chat_items=tuple(session_items), tools=tools
    )
    return candidates_from(request)


def mentioned_items(text: str, agent: Agent) -> tuple[list[ItemRef], list[str]]:
    """Items named with ``@rule:`` / ``@ref:`` in ``text``, and the mentions that match nothing."""
    found: list[ItemRef] = []
    unknown: list[str] = []
    for kind_word, name in MENTION.findall(text):
        kind: DocumentKind = "rule" if kind_word == "rule" else "reference"
        if agent.document(kind, name) is None:
            unknown.append(f"@{kind_word}:{name}")
        elif (ref := ItemRef(kind, name)) not in found:
            found.append(ref)
    return found, unknown


def _exists(ref: ItemRef, agent: Agent, tools: dict[ItemRef, ToolDescriptor]) -> bool:
    if ref.type == "tool":
        return ref in tools
    if ref.type == "memory":
        return True  # kept in the memory store: recall skips one forgotten since
    if ref.type == "skill":
        skill = agent.skills.get(ref.name)
        return skill is not None and skill.enabled  # a disabled skill leaves every chat
    if ref.server is not None:
        return False  # an MCP resource: exists only while attached to the chat
    return agent.document("rule" if ref.type == "rule" else "reference", ref.name) is not None
