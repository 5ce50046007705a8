"""Building the RequestContext of one request: the one place that decides what enters it.

A chat's own items (always and manual) go in as they are. Items whose ``globs:`` match a file the
message or an attached resource names join next (``glob_attachment``). Agent-mode items are chosen
per message by the selector from the candidates each *context source* offers: one source per kind of item
(rules, references, tools; later memories), so a new kind of item is one new source. Then the
model's way of using tools is applied (all offered, one routed, or none) with a note saying why.
Sending a message, what-if and anything else that makes requests use ``build_request_context``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from agent_core.agent.agent import Agent
from agent_core.agent.schema import InternalServerConfig, SelectionConfig
from agent_core.chat.item_kinds import disclosed, unroutable_tools
from agent_core.chat.tool_routing import route_tool
from agent_core.context.glob_attachment import glob_matched_items
from agent_core.context.items import ItemRef, RequestContext, RequestItem, SelectionRun, SessionItem
from agent_core.context.request_tools import OfferRequest, offered_tools
from agent_core.context.selection import ContextSelector, SelectionOutcome
from agent_core.context.sources import ContextRequest, ContextSource, candidates_from
from agent_core.memory.chat_memories import ChatMemories
from agent_core.memory.service import RecalledMemories
from agent_core.providers.base import ToolCalling
from agent_core.tools.runtime import ToolDescriptor

__all__ = ["BuiltContext", "build_request_context"]


@dataclass(frozen=True)
class BuiltContext:
    context: RequestContext
    tools: Mapping[ItemRef, ToolDescriptor]  # what the prompt may offer (only those in ``context`` are)
    memory_texts: Mapping[str, str] = field(default_factory=dict)  # recalled memory id -> its text


async def build_request_context(
    request: ContextRequest,
    *,
    selector: ContextSelector | None,
    selection: SelectionConfig,
    model_ref: str,
    tool_calling: ToolCalling,
    sources: Sequence[ContextSource] | None = None,
    memories: ChatMemories | None = None,
) -> BuiltContext:
    """The RequestContext for ``request``: the chat's items, the items whose globs match a file
    it names (with the file), the agent items selected for the message (with scores and
    near-misses), the memories it recalls (with the reason for each), and the tools as this model
    can use them."""
    all_tools = request.tools
    usable_tools = all_tools if tool_calling != "none" else ()
    offered = {ItemRef("tool", tool.name, tool.server) for tool in usable_tools}
    wanted = request.chat_items
    chat_items = tuple(
        item
        for item in request.chat_items
        if item.ref not in request.excluded
        and item.ref.type != "memory"  # memories are recalled per message, below
        and (item.ref.type != "tool" or item.ref in offered)
    )
    request = replace(request, chat_items=chat_items, tools=usable_tools)
    matched = glob_matched_items(request)
    # Selection need not choose what a file already brought in: it counts as in the chat for it.
    selecting = replace(request, chat_items=(*chat_items, *(SessionItem(i.ref, "manual") for i in matched)))
    outcome = await _select(selecting, selector, selection, sources)
    recalled = RecalledMemories()
    if memories is not None and selector is not None:
        recalled = await memories.recall(request.message, wanted, request.excluded)
    context = RequestContext(
        items=(
            *(RequestItem(item.ref, item.include_mode) for item in chat_items),
            *matched,
            *outcome.items,
            *recalled.items,
        ),
        model=model_ref,
        selection=outcome.run,
        near_misses=(*outcome.near_misses, *recalled.near_misses),
    )
    if recalled.note:
        context = replace(context, notes=replace(context.notes, memory=recalled.note))
    # How much of each item a request carries, as its kind decides (a skill: catalogue line or body).
    context = disclosed(context, request, selection, tool_calling)
    descriptors: dict[ItemRef, ToolDescriptor] = {ItemRef("tool", t.name, t.server): t for t in usable_tools}
    if tool_calling == "native":  # tools the request answers itself (the second opinion's)
        for answered in await offered_tools(OfferRequest(request, context, outcome, selection, selector)):
            ref = ItemRef("tool", answered.tool.name, answered.tool.server)
            context = replace(
                context, items=(*context.items, RequestItem(ref, "always", reason=answered.reason))
            )
            descriptors[ref] = answered.tool
    if not usable_tools and all_tools:
        note = f"{model_ref} cannot call tools, so none were offered"
        context = replace(context, notes=replace(context.notes, tools=note))
    if tool_calling == "routed":
        context = await route_tool(
            selector,
            request.message,
            request.previous_message,
            context,
            descriptors,
            selection,
            unroutable={
                **_reference_readers(request.agent, descriptors),
                **unroutable_tools(request.agent, descriptors),
            },
        )
    return BuiltContext(context, descriptors, recalled.texts)


def _reference_readers(agent: Agent, tools: Mapping[ItemRef, ToolDescriptor]) -> dict[ItemRef, str]:
    """The built-in references server's tools that take a reference's name, which a routed model
    is never handed: it would have to guess the name (the bundled model wrote "... (see
    list_references)"), and references reach it through selection already. Listing them stays."""
    servers = {
        name
        for name, server in agent.config.mcp_servers.items()
        if isinstance(server, InternalServerConfig) and server.tool == "references"
    }
    why = "a model that cannot choose tools gets references through selection (the References column)"
    return {
        ref: why for ref, tool in tools.items() if ref.server in servers and tool.input_schema.get("required")
    }


async def _select(
    request: ContextRequest,
    selector: ContextSelector | None,
    config: SelectionConfig,
    sources: Sequence[ContextSource] | None,
) -> SelectionOutcome:
    if selector is None:
        run = SelectionRun(
            config.top_k, config.top_n, config.include_score, config.strategy, status="disabled"
        )
        return SelectionOutcome((), (), run)
    candidates = candidates_from(request, sources)
    return await selector.select(
        request.message, candidates, config, request.previous_message, agent_path=str(request.agent.root)
    )
