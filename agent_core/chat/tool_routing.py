"""Routed tool calling, for models that cannot choose among tools themselves (small local models).

The semantic indexer scores the message against the tools in the request context, and the one
that matches best is called if it scores at least ``selection.toolRouteScore`` and the message
asks for its action, not for the model's work (writing, summarising, explaining: see
``agent_core.context.routing_intent``); the model only writes its arguments. Every other tool leaves the RequestContext and is listed as not included
with its score, so View Context shows why a tool was, or was not, called.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from agent_core.agent.schema import SelectionConfig
from agent_core.context.items import ItemRef, NearMiss, RequestContext, RequestItem
from agent_core.context.routing_intent import model_work
from agent_core.context.selection import ContextSelector, tool_candidate
from agent_core.tools.runtime import ToolDescriptor

__all__ = ["route_tool"]


# How a routed-out tool had come into the request, for its reason.
_HOW_IN = {"always": "Always-on tool", "manual": "Tool added to this chat", "agent": "Selected tool"}


async def route_tool(
    selector: ContextSelector | None,
    message: str,
    previous_message: str | None,
    context: RequestContext,
    tools: Mapping[ItemRef, ToolDescriptor],
    config: SelectionConfig,
    unroutable: Mapping[ItemRef, str] | None = None,
) -> RequestContext:
    """``context`` with at most one tool: the one ``message`` clearly asks for. Every other tool
    it held is listed as not included, saying how it had come in and why routing left it out;
    ``unroutable`` tools are never picked (each with why)."""
    unroutable = unroutable or {}
    held = [item for item in context.of_type("tool") if item.ref in tools]
    offered = [item for item in held if item.ref not in unroutable]
    without_tools = tuple(item for item in context.items if item.ref.type != "tool")
    other_misses = (
        *(miss for miss in context.near_misses if miss.ref.type != "tool"),
        *(
            NearMiss(item.ref, None, f"{_HOW_IN[item.include_mode]} routed out: {unroutable[item.ref]}")
            for item in held
            if item.ref in unroutable
        ),
    )
    model = context.model.partition(":")[2] or context.model
    if not offered:
        if not held:
            return context
        note = f"{model} cannot choose tools itself, and none of this request's tools can be picked for it"
        return replace(
            context,
            items=without_tools,
            near_misses=other_misses,
            notes=replace(context.notes, tool_routing=note),
        )
    if selector is None:
        note = f"{model} cannot choose tools and selection is off in this app, so no tool was called"
        why = "selection is off in this app, so no tool can be picked"
        return replace(
            context,
            items=without_tools,
            near_misses=(*other_misses, *_routed_out(offered, None, {}, why)),
            notes=replace(context.notes, tool_routing=note),
        )
    candidates = [
        tool_candidate(d.server, d.name, d.description, dict(d.input_schema))
        for d in (tools[item.ref] for item in offered)
    ]
    threshold = config.tool_route_score
    routing = SelectionConfig(strategy="hybrid", top_n=1, include_score=1.0, min_score=min(threshold, 1.0))
    outcome = await selector.select(message, candidates, routing, previous_message)
    scores = {miss.ref: miss.score for miss in outcome.near_misses} | {i.ref: i.score for i in outcome.items}
    scored = sorted(outcome.items, key=lambda item: -(item.score or 0.0))
    chosen = scored[0] if scored and (scored[0].score or 0.0) >= threshold else None
    asked = model_work(message, tools[chosen.ref].name) if chosen is not None else None
    needed: float | None = None
    if outcome.run.status != "ok":
        problem = outcome.run.detail or outcome.run.status
        note = (
            f"{model} cannot choose tools, and the tool could not be picked for it ({problem}), "
            "so none was called"
        )
        why = f"picking a tool failed ({problem})"
    elif chosen is None:
        best = max(
            ((ref, score) for ref, score in scores.items() if score is not None),
            key=lambda pair: pair[1],
            default=None,
        )
        beaten = f" (best: {best[0].label()} {best[1]:.2f})" if best else ""
        note = (
            f"{model} cannot choose tools itself; no tool matched this message at {threshold:.2f} or "
            f"more{beaten}, so none was called"
        )
        why = "no tool matched the message well enough to be called"
        needed = threshold
    elif chosen is not None and asked is not None:
        note = (
            f"{model} cannot choose tools itself; {asked.reason}, so no tool was called (best match: "
            f"{chosen.ref.label()} {chosen.score or 0.0:.2f})"
        )
        why = asked.reason
        chosen = None
    else:
        note = (
            f"{model} cannot choose tools itself, so ContextDesk picked {chosen.ref.label()}, the tool this "
            f"message matched best ({chosen.score or 0.0:.2f} ≥ {threshold:.2f}), and called it"
        )
        why = f"only {chosen.ref.label()}, the best match, was sent"
    kept: tuple[RequestItem, ...] = ()
    if chosen is not None:
        original = next(item for item in offered if item.ref == chosen.ref)
        kept = (RequestItem(chosen.ref, original.include_mode, chosen.score),)
    left_out = [item for item in offered if chosen is None or item.ref != chosen.ref]
    return replace(
        context,
        items=(*without_tools, *kept),
        near_misses=(*other_misses, *_routed_out(left_out, needed, scores, why)),
        notes=replace(context.notes, tool_routing=note),
    )


def _routed_out(
    items: Sequence[RequestItem], needed: float | None, scores: Mapping[ItemRef, float | None], why: str
) -> tuple[NearMiss, ...]:
    """Each tool routing left out, with how it had come in (an Always tool the user expects to be
    there says so) and why it is out; unscored when selection did not get to score it. The model's
    part (it cannot choose tools) is in the context's routing note, so the reasons stay short."""
    return tuple(
        NearMiss(item.ref, scores.get(item.ref), f"{_HOW_IN[item.include_mode]} routed out: {why}", needed)
        for item in items
    )
