"""Turning chunk scores into a selection: the anchor rules and ContextDesk's hybrid strategy.

Everything here is pure numpy on precomputed scores (no Python loop per item, so 100k chunks
rank in milliseconds), and unit-tested with crafted scores.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal, get_args

import numpy as np
import numpy.typing as npt

__all__ = [
    "REASONS",
    "VIA_CLAUSE",
    "VIA_LEARNED",
    "VIA_WHOLE",
    "Ranked",
    "Ranking",
    "Reason",
    "SelectionSettings",
    "Strategy",
    "best_chunk_per_item",
    "corrected",
    "merge_rankings",
    "only_the_best",
    "rank_anchor",
    "rank_hybrid",
    "without_twins",
]

Strategy = Literal["anchor", "hybrid"]

#: Why a candidate was or was not included.
Reason = Literal[
    "above_include_score",  # score >= include_score: included even beyond top_n
    "within_top_n",  # among the top_n best items (and, for hybrid, above the floor and near the best)
    "outside_top_n",  # good enough, but top_n better items were taken
    "below_floor",  # hybrid: score under min_score
    "far_from_best",  # hybrid: more than max_gap below the best item of its domain
    "not_in_top_k",  # anchor: none of its chunks was among the top_k chunks
    "removed_for_similar",  # the user removed it from a reply to a message much like this one
    "not_named",  # hybrid: one of a large family of items described alike, and the message does not name it
    "twin_of_better",  # hybrid: says what a better-scored chosen item says (indexer/_twins.py)
    "one_thing_asked",  # hybrid: the message asks what one thing is; a better item answers it
]
REASONS: tuple[Reason, ...] = get_args(Reason)
_ABOVE, _WITHIN, _OUTSIDE, _FLOOR, _FAR, _NOT_IN_TOP_K, _REMOVED, _NOT_NAMED, _TWIN, _ONE_THING = range(
    len(REASONS)
)

#: How an included item got in (``Ranking.via``): the message as a whole, one clause of it, or
#: what the user taught for a message much like it.
VIA_WHOLE, VIA_CLAUSE, VIA_LEARNED = 0, 1, 2

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class SelectionSettings:
    """User-facing selection settings. ``top_n`` and ``include_score`` mean the same in both
    strategies; ``top_k`` is the anchor's only; the rest are the hybrid's (see docs/selection.md).
    """

    strategy: Strategy = "hybrid"
    #: anchor: how many best chunks are considered before grouping them by item.
    top_k: int = 20
    #: at most this many items, unless more score at least ``include_score``.
    top_n: int = 5
    #: items at or above this score are always included.
    include_score: float = 0.7
    #: hybrid: items below this score are never included, so a message that needs nothing gets nothing.
    min_score: float = 0.45
    #: hybrid: items more than this below the best of their domain (documents or tools) are left out.
    max_gap: float = 0.05
    #: hybrid: weight of the lexical (BM25, 0..1) score added to the cosine.
    lexical_weight: float = 0.3
    #: hybrid: added to tools' scores; their one-line descriptions score lower cosines than prose.
    tool_offset: float = 0.1
    #: hybrid: weight of the previous message's vector blended into a short message's (follow-ups).
    previous_weight: float = 0.3
    #: hybrid: how a message's links, e-mail addresses and paths are put before it is embedded:
    #: "keep" as they are, or "mask"ed by a plain word. Opaque tokens break into many word pieces
    #: and swamp a mean-pooled vector ("screenshot book.kitebase.com/demo" barely matches a
    #: screenshot tool); the lexical score still sees the original text.
    opaque_tokens: Literal["keep", "mask"] = "mask"
    #: hybrid: tools and skills are also scored against the message's action alone, without the text it
    #: dictates (quoted text, what follows "saying" or a colon), keeping the better score.
    action_view: bool = True
    #: hybrid: a compound message ("deploy X and tell Y") is also ranked clause by clause, and an
    #: item any clause needs is included (each clause with its own floor and gaps).
    clause_split: bool = True
    #: hybrid: a clause's items must clear the floor by this much more than the whole message's.
    clause_margin: float = 0.05
    #: hybrid: taken off tools' scores for a question about how things are ("what's the
    #: difference between git diff and git show?"): it asks to know, not to act.
    question_tool_penalty: float = 0.3
    #: hybrid: the floor is raised this much for such a question (rules and references too).
    question_floor: float = 0.1
    #: hybrid: an item the user added after a message at least this similar is included.
    learned_similarity: float = 0.8
    #: hybrid: an item the user removed after a message at least this similar is left out.
    avoid_similarity: float = 0.9
    #: hybrid: added times the share of an item's distinctive name words the message says
    #: (words few items use: "strava", not "automation"; indexer/_rare_names.py).
    rare_name_weight: float = 0.15
    #: hybrid: a name word is distinctive when at most this many items use it (names, descriptions).
    rare_name_max_items: int = 3
    #: hybrid: a distinctive name word must be written as a proper name in the item's description
    #: ("Automate Strava tasks"), not an ordinary word ("leave-policy", "git_show").
    rare_name_proper: bool = True
    #: hybrid: an item whose distinctive name words the message all says scores at least the floor.
    rare_name_lift: bool = False
    #: hybrid: weight of a second lexical score over names and descriptions only (0..1), so a
    #: message saying what a description says is not outvoted by other items' long bodies.
    head_lexical_weight: float = 0.0
    #: hybrid: the share of ``lexical_weight`` moved from the whole text to names and
    #: descriptions alone (0: the whole text, as before; 1: the head only).
    head_lexical_share: float = 0.0
    #: hybrid: body chunks (not names, descriptions or examples) lose this much cosine per e-fold
    #: of body chunks beyond ``body_noise_reference`` in the set ranked (indexer/_body_noise.py).
    body_noise_slope: float = 0.04
    #: hybrid: the size of set the floors were set on; a set of at most this many body chunks keeps
    #: its cosines as they are.
    body_noise_reference: int = 1_000
    #: hybrid: in a set past ``body_noise_reference`` body chunks, a short body chunk (a heading, a
    #: label) of an item with a description loses this times ln(body chunks / reference) of its lead
    #: over the item's name and description (at most 0.9 of it; indexer/_body_noise.py). 0: off.
    head_agreement_slope: float = 0.15
    #: hybrid: items whose descriptions are one sentence with another name in it ("Automate Strava
    #: tasks via ...") form a family when at least this many share it; a member is chosen only when
    #: the message names it (indexer/_templates.py). 0 turns it off.
    template_family_min: int = 10
    #: hybrid: a chosen item whose name and description are at least this alike to those of a
    #: better-scored chosen item is left out (indexer/_twins.py). 1 or more turns it off.
    twin_similarity: float = 0.7
    #: hybrid: a message that only asks what one thing is ("what's git", "explain oauth simply")
    #: gets at most this many items: the best about it, not every item named after it
    #: (indexer/_one_thing.py). ``top_n`` or more turns it off.
    definition_top_n: int = 1

    def __post_init__(self) -> None:
        if not 0.0 <= self.head_lexical_share <= 1.0:
            raise ValueError("head_lexical_share must lie between 0 and 1")
        if self.top_k < 1 or min(self.top_n, self.template_family_min, self.definition_top_n) < 0:
            raise ValueError(
                "top_k must be at least 1; top_n, template_family_min and definition_top_n at least 0"
            )
        if min(self.rare_name_max_items, self.body_noise_reference) < 1:
            raise ValueError("rare_name_max_items and body_noise_reference must be at least 1")
        if (
            min(self.max_gap, self.lexical_weight, self.previous_weight) < 0
            or min(self.rare_name_weight, self.head_lexical_weight, self.body_noise_slope) < 0
            or self.head_agreement_slope < 0
        ):
            raise ValueError(
                "max_gap, lexical_weight, previous_weight, rare_name_weight, head_lexical_weight, "
                "body_noise_slope and head_agreement_slope cannot be negative"
            )
        if self.twin_similarity < 0:
            raise ValueError("twin_similarity cannot be negative (1 turns folding twins off)")


@dataclass(frozen=True)
class Ranked:
    """One item's outcome: its index among the documents, scores, best chunk, decision and reason."""

    item: int
    score: float
    cosine: float
    chunk: int
    included: bool
    reason: Reason


@dataclass(frozen=True)
class Ranking:
    """Every item's outcome as arrays indexed by item. Orders are computed on demand, so a
    caller that only wants the included items never sorts thousands of others.
    """

    score: FloatArray
    cosine: FloatArray
    chunk: IntArray
    reason: npt.NDArray[np.int8]
    #: breaks score ties (lower first): the anchor uses the best chunk's index, the hybrid the item's.
    tiebreak: IntArray
    #: per item, which view of the message decided it (VIA_*); None: the whole message.
    via: npt.NDArray[np.int8] | None = None

    @property
    def included(self) -> BoolArray:
        included: BoolArray = self.reason <= _WITHIN
        return included

    def _sorted(self, items: IntArray) -> IntArray:
        return items[np.lexsort((self.tiebreak[items], -self.score[items]))]

    @functools.cached_property
    def order(self) -> IntArray:
        """Items that have at least one chunk, best first."""
        return self._sorted(np.flatnonzero(self.chunk >= 0))

    def included_order(self) -> IntArray:
        """The included items, best first."""
        return self._sorted(np.flatnonzero(self.included))

    def best(self, count: int) -> IntArray:
        """The ``count`` best items, best first."""
        items = np.flatnonzero(self.chunk >= 0)
        if count < len(items):
            kth = np.partition(-self.score[items], count - 1)[count - 1]
            items = items[-self.score[items] <= kth]  # keep every tie with the count-th
        return self._sorted(items)[:count]

    def row(self, item: int) -> Ranked:
        """The outcome of one item."""
        return Ranked(
            item,
            float(self.score[item]),
            float(self.cosine[item]),
            int(self.chunk[item]),
            bool(self.reason[item] <= _WITHIN),
            REASONS[int(self.reason[item])],
        )

    def rows(self) -> list[Ranked]:
        """Every item's outcome, best first."""
        return [self.row(int(i)) for i in self.order]


def best_chunk_per_item(
    chunk_scores: FloatArray, chunk_item: IntArray, n_items: int
) -> tuple[FloatArray, IntArray]:
    """Per item, the best chunk score and that chunk's index (-inf and -1 for items without chunks).

    Ties go to the earliest chunk.
    """
    best = np.full(n_items, -np.inf, dtype=np.float32)
    np.maximum.at(best, chunk_item, chunk_scores)
    best_chunk = np.full(n_items, -1, dtype=np.intp)
    hits = np.flatnonzero(chunk_scores == best[chunk_item])
    owners = chunk_item[hits]
    if len(owners) and np.all(owners[1:] >= owners[:-1]):
        # Chunks stored item by item (as indexes do): the first hit of each item is its best.
        first = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
        best_chunk[owners[first]] = hits[first]
    else:
        items, first = np.unique(owners, return_index=True)
        best_chunk[items] = hits[first]
    return best, best_chunk


def _top_chunks(chunk_scores: FloatArray, k: int) -> IntArray:
    """Indices of the ``k`` best chunks, best first; ties keep chunk order (a stable sort)."""
    if k >= len(chunk_scores):
        return np.argsort(-chunk_scores, kind="stable")
    # argpartition is O(n); widen to every chunk tied with the k-th so ties stay deterministic.
    kth = np.partition(-chunk_scores, k - 1)[k - 1]
    candidates = np.flatnonzero(-chunk_scores <= kth)
    order = candidates[np.argsort(-chunk_scores[candidates], kind="stable")]
    return order[:k]


def rank_anchor(
    chunk_scores: FloatArray, chunk_item: IntArray, n_items: int, settings: SelectionSettings
) -> Ranking:
    """The anchor (TsAgent) rules, exactly.

    Sort chunks by score, keep the ``top_k`` best, group them by item keeping each item's best
    score, include every item scoring at least ``include_score``, then fill up to ``top_n``
    items by score. Items with no chunk in the top ``k`` get reason ``not_in_top_k`` (and
    their best score over all chunks).
    """
    best, best_chunk = best_chunk_per_item(chunk_scores, chunk_item, n_items)
    top = _top_chunks(chunk_scores, settings.top_k)
    # First occurrence of each item among the top chunks = its best chunk there (best first).
    grouped, first = np.unique(chunk_item[top], return_index=True)
    grouped = grouped[np.argsort(first, kind="stable")]
    reason = np.full(n_items, _NOT_IN_TOP_K, dtype=np.int8)
    position = np.arange(len(grouped))
    reason[grouped] = np.where(
        best[grouped] >= settings.include_score,
        _ABOVE,
        np.where(position < settings.top_n, _WITHIN, _OUTSIDE),
    )
    # Sorting by (best score, best chunk index) reproduces the grouped order, then the rest.
    return Ranking(score=best, cosine=best, chunk=best_chunk, reason=reason, tiebreak=best_chunk)


def merge_rankings(rankings: list[Ranking], top_n: int) -> Ranking:
    """Several views of one message (the whole, each clause) as one ranking: an item is included
    if any view includes it (the best scores first, at most ``top_n``, unless above
    include_score), with the best score any view gave it; an item left out has the reason of the
    view that gave that score, so that its score and its reason agree (not "under the floor"
    from one view beside a score that cleared it in another)."""
    first = rankings[0]
    scores = np.stack([r.score for r in rankings])
    best_view = np.argmax(scores, axis=0)
    items = np.arange(len(first.score))
    score = scores[best_view, items]
    cosine = np.stack([r.cosine for r in rankings])[best_view, items]
    chunk = np.stack([r.chunk for r in rankings])[best_view, items]
    reasons = np.stack([r.reason for r in rankings])
    best_reason = np.min(reasons, axis=0)
    reason = np.where(best_reason <= _WITHIN, best_reason, reasons[best_view, items]).astype(np.int8)
    whole = rankings[0].reason
    by_clause = np.any(reasons[1:] <= _WITHIN, axis=0)
    # An item only top_n kept out is the whole message's, should a place free up for it.
    via = np.where((whole <= _WITHIN) | ((whole == _OUTSIDE) & ~by_clause), VIA_WHOLE, VIA_CLAUSE).astype(
        np.int8
    )
    merged = Ranking(score, cosine, chunk, reason, first.tiebreak, via)
    within = merged._sorted(np.flatnonzero(reason == _WITHIN))
    above = int((reason == _ABOVE).sum())
    reason[within[max(0, top_n - above) :]] = _OUTSIDE
    return merged


def without_twins(ranking: Ranking, twins: IntArray, top_n: int | None = None) -> Ranking:
    """``ranking`` with ``twins`` (included items) left out as twins of better ones; with
    ``top_n``, the places they free go to the best items only ``top_n`` had kept out."""
    if not len(twins):
        return ranking
    reason = ranking.reason.copy()
    reason[twins] = _TWIN
    if top_n is not None:
        free = min(len(twins), top_n - int((reason <= _WITHIN).sum()))
        if free > 0:
            reason[ranking._sorted(np.flatnonzero(reason == _OUTSIDE))[:free]] = _WITHIN
    return Ranking(ranking.score, ranking.cosine, ranking.chunk, reason, ranking.tiebreak, ranking.via)


def only_the_best(ranking: Ranking, keep: int) -> Ranking:
    """``ranking`` with only its ``keep`` best included items; the rest are left out as a better
    item answers what the message asks (their scores stay, so View Context shows how near)."""
    included = ranking.included_order()
    if len(included) <= keep:
        return ranking
    reason = ranking.reason.copy()
    reason[included[keep:]] = _ONE_THING
    return Ranking(ranking.score, ranking.cosine, ranking.chunk, reason, ranking.tiebreak, ranking.via)


def corrected(ranking: Ranking, learned: BoolArray, removed: BoolArray) -> Ranking:
    """``ranking`` with the user's corrections of similar messages: ``learned`` items included,
    ``removed`` ones left out (a removal wins)."""
    reason = ranking.reason.copy()
    via = ranking.via.copy() if ranking.via is not None else np.zeros(len(reason), dtype=np.int8)
    newly = learned & (reason > _WITHIN)
    reason[newly] = _WITHIN
    via[newly] = VIA_LEARNED
    reason[removed] = _REMOVED
    return Ranking(ranking.score, ranking.cosine, ranking.chunk, reason, ranking.tiebreak, via)


def rank_hybrid(
    cosines: FloatArray,
    best_chunk: IntArray,
    lexical: FloatArray,
    is_tool: BoolArray,
    settings: SelectionSettings,
    bonus: FloatArray | None = None,
    lifted: BoolArray | None = None,
    unnamed: BoolArray | None = None,
) -> Ranking:
    """ContextDesk's default: dense plus lexical score, an absolute floor, and a gap per domain.

    score = best chunk cosine + ``lexical_weight`` x lexical (0..1) + ``tool_offset`` for tools.
    Items at or above ``include_score`` are always included. Otherwise an item is included if
    it scores at least ``min_score``, is within ``max_gap`` of the best item of its domain
    (documents, i.e. rules and references, or tools: a message often needs one of each), and
    is among the ``top_n`` best of all. ``bonus`` is added to the score (the head signals), and a
    ``lifted`` item scores at least ``min_score``; an ``unnamed`` one is never included and does not
    count as its domain's best.
    """
    scores = (cosines + settings.lexical_weight * lexical + settings.tool_offset * is_tool).astype(np.float32)
    if bonus is not None:
        scores = (scores + bonus).astype(np.float32)
    has_chunk = best_chunk >= 0
    if lifted is not None:
        scores = np.where(lifted & has_chunk, np.maximum(scores, settings.min_score), scores).astype(
            np.float32
        )
    reason = np.full(len(scores), _FLOOR, dtype=np.int8)
    ranking = Ranking(scores, cosines, best_chunk, reason, np.arange(len(scores), dtype=np.intp))
    clears = has_chunk & (scores >= min(settings.min_score, settings.include_score))
    if unnamed is not None:
        reason[clears & unnamed] = _NOT_NAMED
        clears &= ~unnamed
    # Only items above the floor (or include_score) can be included: sort just those.
    candidates = ranking._sorted(np.flatnonzero(clears))
    if len(candidates):
        ranked = scores[candidates]
        domain = is_tool[candidates].astype(np.intp)
        domain_best = np.full(2, -np.inf, dtype=np.float32)
        np.maximum.at(domain_best, domain, ranked)
        above = ranked >= settings.include_score
        floor = ranked < settings.min_score
        far = ranked < domain_best[domain] - settings.max_gap
        eligible = ~above & ~floor & ~far
        # Items above include_score come first in ``candidates``, so they are counted first.
        within = eligible & (np.cumsum(eligible) + above.sum() <= settings.top_n)
        reason[candidates] = np.select(
            [above, floor, far, within], [_ABOVE, _FLOOR, _FAR, _WITHIN], default=_OUTSIDE
        ).astype(np.int8)
    return ranking
