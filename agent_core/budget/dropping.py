"""Making a request fit by leaving out the items selection chose for this message, lowest-scored first.

Agent-selected items (rules, references, skills, memories and tools chosen for this one message)
are the only part of the fixed request that may go without the user asking: the system prompt,
the chat's always-on and added items, the message and this reply's turns stay. When those fixed
parts overflow the window, the selected items are left out from the lowest score up (items with
no score, such as files matched by a glob, last) until the request fits; each one left out is
recorded, and View Context lists it as "left out to fit the window". Only when nothing selected
is left and the request still does not fit does it fail, with what takes the room.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from agent_core.budget.counting import TokenCounter
from agent_core.budget.fitting import Block, ContextOverflowError, Draft, Limits, fit_request
from agent_core.context.items import ContextManifest, ItemRef, NearMiss, PartKind, RequestContext, TrimAction
from agent_core.providers.base import ChatMessage

__all__ = ["LEFT_OUT_TO_FIT", "Fitted", "SelectedItem", "fit_dropping", "without_left_out"]

LEFT_OUT_TO_FIT = "left out to fit the window"

# Which parts of the new message carry an agent-selected item of each type.
_PARTS_OF: dict[str, frozenset[PartKind]] = {
    "rule": frozenset({"selected_rule"}),
    "reference": frozenset({"selected_reference"}),
    "skill": frozenset({"skill_catalogue", "selected_skill"}),
    "memory": frozenset({"memory"}),
}


@dataclass(frozen=True)
class SelectedItem:
    """An item chosen for this message alone: it may be left out to fit. ``tool`` is the name the
    model is offered it by, for a tool."""

    ref: ItemRef
    score: float | None
    tool: str = ""


@dataclass(frozen=True)
class Fitted:
    messages: tuple[ChatMessage, ...]
    manifest: ContextManifest
    left_out: tuple[NearMiss, ...] = ()  # the selected items left out to fit, first left out first

    def left_out_tools(self) -> frozenset[str]:
        return frozenset(miss.ref.name for miss in self.left_out if miss.ref.type == "tool")


def fit_dropping(
    draft: Draft, selected: Sequence[SelectedItem], counter: TokenCounter, limits: Limits
) -> Fitted:
    """:func:`fit_request`, leaving out the lowest-scored of ``selected`` while the request would
    not fit otherwise.

    Raises:
        ContextOverflowError: what is left once every selected item is out still does not fit.
    """
    # Lowest score first; items with no score (joined by a file match, asked for by the model) last.
    queue = sorted(selected, key=lambda item: math.inf if item.score is None else item.score)
    left_out: list[SelectedItem] = []
    fitted: tuple[tuple[ChatMessage, ...], ContextManifest] | None = None
    while fitted is None:
        try:
            fitted = fit_request(draft, counter, limits)
        except ContextOverflowError as error:
            if not queue:
                if left_out:
                    raise ContextOverflowError(
                        f"{_were(len(left_out))} left out first, and still " + str(error),
                        error.excess,
                    ) from error
                raise
            dropping = _enough_to_cover(queue, draft, counter, error.excess)
            queue = queue[len(dropping) :]
            left_out += dropping
            draft = _without(draft, dropping)
    messages, manifest = fitted
    if not left_out:
        return Fitted(messages, manifest)
    names = ", ".join(item.ref.label() for item in left_out)
    count = "1 selected item" if len(left_out) == 1 else f"{len(left_out)} selected items"
    action = TrimAction("items_left_out", f"{count} left out to fit the window: {names}")
    manifest = replace(manifest, trimmed=(*manifest.trimmed, action))
    misses = tuple(NearMiss(item.ref, item.score, LEFT_OUT_TO_FIT) for item in left_out)
    return Fitted(messages, manifest, misses)


def without_left_out(context: RequestContext, left_out: Sequence[NearMiss]) -> RequestContext:
    """``context`` as it was sent: the items left out to fit are near-misses, listed first."""
    if not left_out:
        return context
    gone = {miss.ref for miss in left_out}
    return replace(
        context,
        items=tuple(item for item in context.items if item.ref not in gone),
        near_misses=(*left_out, *(miss for miss in context.near_misses if miss.ref not in gone)),
    )


def _were(count: int) -> str:
    return (
        "1 item selected for this message was"
        if count == 1
        else f"{count} items selected for this message were"
    )


def _cost(item: SelectedItem, draft: Draft, counter: TokenCounter) -> int:
    kinds = _PARTS_OF.get(item.ref.type, frozenset())
    blocks = sum(counter.count(b.text) for b in draft.user if b.kind in kinds and b.name == item.ref.name)
    return blocks + sum(counter.tool(spec) for spec in draft.tools if item.tool and spec.name == item.tool)


def _enough_to_cover(
    queue: Sequence[SelectedItem], draft: Draft, counter: TokenCounter, excess: int
) -> list[SelectedItem]:
    """The fewest of ``queue``, in order, whose parts add up to ``excess`` tokens (at least one)."""
    chosen: list[SelectedItem] = []
    freed = 0
    for item in queue:
        chosen.append(item)
        freed += _cost(item, draft, counter)
        if freed >= excess:
            break
    return chosen


def _without(draft: Draft, items: Sequence[SelectedItem]) -> Draft:
    """``draft`` without the parts of ``items``, and without a wrapper left with nothing inside."""
    tools = {item.tool for item in items if item.tool}
    names = {(kind, item.ref.name) for item in items for kind in _PARTS_OF.get(item.ref.type, ())}
    removed = [(block.kind, block.name) in names for block in draft.user]
    return replace(
        draft,
        user=_drop_empty_wrappers(draft.user, removed),
        tools=[spec for spec in draft.tools if spec.name not in tools],
    )


def _drop_empty_wrappers(blocks: Sequence[Block], removed: list[bool]) -> list[Block]:
    """``blocks`` without the removed ones; an opening and closing framing that held only removed
    blocks go too ("<context selected-for=…>" around no item would be noise)."""
    gone = list(removed)
    index = 0
    while index < len(blocks):
        if not gone[index]:
            index += 1
            continue
        end = index
        while end < len(blocks) and gone[end]:
            end += 1
        before, after = index - 1, end
        if before >= 0 and after < len(blocks) and blocks[before].kind == blocks[after].kind == "framing":
            gone[before] = gone[after] = True
        index = end
    return [block for block, out in zip(blocks, gone, strict=True) if not out]
