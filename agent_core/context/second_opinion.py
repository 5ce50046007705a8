"""A second opinion on selection, from the chat's model: a model that chooses tools itself is
offered ``context.read_item``, whose description is a catalogue of the agent-mode rules and
references selection left out, and, when that is not enough, ``context.search_items`` over every
rule, reference and skill left out. An item it reads joins the reply's RequestContext as
"requested by the model", and selection learns from it as from the user's own additions.

When the search is offered (``search_offered``): the catalogue cannot list every rule and
reference left out (``CATALOGUE_CHARS``), or selection's best score for a rule, reference or skill
is under its floor (``minScore``): selection found nothing it is sure of, and the model may know
better what the message needs. Registered through the request-tools seam (``request_tools``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

from agent_core.context.item_catalogue import catalogue_tool
from agent_core.context.item_search import search_tool
from agent_core.context.items import ItemRef
from agent_core.context.listed_once import left_out
from agent_core.context.request_tools import AnsweredTool, OfferedTool, OfferRequest, ToolOffer
from agent_core.context.selection import SelectionOutcome, indexer_settings
from agent_core.plugins import Register

__all__ = ["SecondOpinion", "best_document_score", "register_request_tools", "search_offered"]

_DOCUMENT_KINDS = ("rule", "reference", "skill")


class SecondOpinion:
    """The second opinion's tools for one request (a ``ToolOffer``)."""

    async def offer(self, offer: OfferRequest) -> Sequence[OfferedTool]:
        if not offer.config.second_opinion or offer.outcome.run.status != "ok":
            return []
        return await asyncio.to_thread(second_opinion_tools, offer)  # reads every item once


def register_request_tools(register: Register[ToolOffer]) -> None:
    register("second-opinion", SecondOpinion())


def best_document_score(outcome: SelectionOutcome) -> float | None:
    """Selection's best score for a rule, reference or skill (selected or a near-miss); None when
    it scored none."""
    scores = [
        score
        for ref, score in (
            *((item.ref, item.score) for item in outcome.items),
            *((miss.ref, miss.score) for miss in outcome.near_misses),
        )
        if ref.type in _DOCUMENT_KINDS and score is not None
    ]
    return max(scores, default=None)


def search_offered(outcome: SelectionOutcome, floor: float, *, catalogue_full: bool) -> str | None:
    """Why the search is offered for this request, or None when it is not."""
    if not catalogue_full:
        return "more items were left out than the catalogue lists"
    best = best_document_score(outcome)
    if best is None:
        return "selection scored no rule, reference or skill"
    if best < floor:
        return f"selection's best score {best:.2f} is under its floor {floor:.2f}"
    return None


def second_opinion_tools(offer: OfferRequest) -> list[OfferedTool]:
    """``context.read_item`` when a rule or reference was left out, and ``context.search_items``
    beside it when ``search_offered`` says so."""
    request, context = offer.request, offer.context
    taken = frozenset({item.ref for item in context.items} | request.excluded)
    found: set[ItemRef] = set()
    left = left_out(request.agent, taken)  # read and folded once for both tools
    catalogue = catalogue_tool(request.agent, taken, (), offer.outcome.near_misses, left)
    listed = len(catalogue.catalogue) if catalogue is not None else 0
    not_included = catalogue.left_out if catalogue is not None else 0
    why = search_offered(
        offer.outcome, indexer_settings(offer.config).min_score, catalogue_full=listed >= not_included
    )
    search = search_tool(left, offer.selector, offer.config, found) if why else None
    tools: list[tuple[AnsweredTool, str]] = []
    if catalogue is not None:
        shown = (
            f"{listed} item{'s' if listed > 1 else ''}"
            if listed >= not_included
            else f"{listed} of {not_included}"
        )
        if search is not None:
            catalogue = replace(catalogue, found=found)
        tools.append((catalogue, f"lets the model read what selection left out ({shown} listed)"))
    if search is not None:
        count = len(search.items)
        tools.append(
            (search, f"lets the model search the {count} item{'s' if count > 1 else ''} left out: {why}")
        )
    return [OfferedTool(tool, reason) for tool, reason in tools]
