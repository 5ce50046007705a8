"""Context sources: one per kind of item (rules, references, tools, skills), each
offering per-message selection the agent-mode items of its kind that are not already in the
request. A new kind of item is one new source."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from agent_core.agent.agent import Agent
from agent_core.agent.schema import IncludeMode
from agent_core.context.items import ItemRef, ItemType, SessionItem
from agent_core.context.selection import Candidate, document_candidate, tool_candidate
from agent_core.plugins import PluginRegistry, Register
from agent_core.tools.runtime import ToolDescriptor

__all__ = [
    "CONTEXT_SOURCES",
    "ContextRequest",
    "ContextSource",
    "DocumentSource",
    "ToolSource",
    "candidates_from",
    "default_sources",
]


@dataclass(frozen=True)
class ContextRequest:
    """What the sources see of one request."""

    agent: Agent
    message: str
    previous_message: str | None
    chat_items: tuple[SessionItem, ...]  # already in the request: selection need not choose them
    tools: Sequence[ToolDescriptor]  # the tools the model can be offered
    excluded: frozenset[ItemRef] = field(default_factory=frozenset)  # turned off for this request


class ContextSource(Protocol):
    """One kind of context item, offering per-message selection what it may choose."""

    @property
    def item_type(self) -> ItemType: ...

    def candidates(self, request: ContextRequest) -> list[Candidate]:
        """Agent-mode items of this kind not already in the request."""
        ...


@dataclass(frozen=True)
class DocumentSource:
    """The agent's rules or references."""

    item_type: ItemType

    def candidates(self, request: ContextRequest) -> list[Candidate]:
        documents = request.agent.rules if self.item_type == "rule" else request.agent.references
        taken = {item.ref for item in request.chat_items} | request.excluded
        return [
            document_candidate(doc)
            for doc in documents.values()
            if doc.include is IncludeMode.AGENT and ItemRef(doc.kind, doc.name) not in taken
        ]


@dataclass(frozen=True)
class ToolSource:
    """The tools of the agent's MCP servers that are ready now."""

    item_type: ItemType = "tool"

    def candidates(self, request: ContextRequest) -> list[Candidate]:
        taken = {item.ref for item in request.chat_items} | request.excluded
        return [
            tool_candidate(tool.server, tool.name, tool.description, dict(tool.input_schema))
            for tool in request.tools
            if tool.include is IncludeMode.AGENT and ItemRef("tool", tool.name, tool.server) not in taken
        ]


def register_context_sources(register: Register[ContextSource]) -> None:
    """The built-in sources, in the order selection has always seen their candidates."""
    register("rules", DocumentSource("rule"))
    register("references", DocumentSource("reference"))
    register("tools", ToolSource())
    from agent_core.context.skill_source import SkillSource  # it builds on this module's request

    register("skills", SkillSource())


# Third-party sources register through the entry-point group contextdesk.context_sources.
CONTEXT_SOURCES: PluginRegistry[ContextSource] = PluginRegistry(
    "context_sources",
    noun="context source",
    builtins=("agent_core.context.sources:register_context_sources",),
)


def default_sources() -> tuple[ContextSource, ...]:
    """Every registered source: the built-ins first, then plug-ins."""
    return tuple(source for _name, source in CONTEXT_SOURCES.plugins())


def candidates_from(
    request: ContextRequest, sources: Sequence[ContextSource] | None = None
) -> list[Candidate]:
    """Every candidate the sources (default: the built-in ones) offer for ``request``, in order."""
    return [
        c
        for source in (sources if sources is not None else default_sources())
        for c in source.candidates(request)
    ]
