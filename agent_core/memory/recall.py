"""Which memories one message recalls, and why: relevance (the hybrid of the selector: cosine
plus a lexical bonus), recency and importance; near-duplicates dropped; pinned memories always
in; a token budget. Superseded, expired, rejected, forgotten and proposed memories never are."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from agent_core.agent.schema import MemoryConfig
from agent_core.memory.facets import FacetSpace
from agent_core.memory.index import MemoryIndex
from agent_core.memory.records import Memory
from indexer import lexical_tokens

__all__ = ["Recall", "Recalled", "pins_over_budget_note", "pins_over_budget_warning", "recall"]

Vector = npt.NDArray[np.float32]

LEXICAL_WEIGHT = 0.3  # as the hybrid selector: a whole-query keyword match adds this to the cosine
RELEVANCE_SHARE, RECENCY_SHARE, IMPORTANCE_SHARE = 0.6, 0.25, 0.15
NEAR_DUPLICATE = 0.9
PERSON_BONUS = 0.2
# A memory must also be this close to the best match of the message: the rest are topical at best
# (on the labelled sets, precision rose from 0.26 to 0.46 for a few points of recall).
RELATIVE_MARGIN = 0.2  # cosine between two recalled memories above which the second adds nothing
NEAR_MISS_MARGIN = 0.12  # memories this far under minRelevance are shown as near misses
NEAR_MISSES_KEPT = 5
HOUR = 3600.0


@dataclass(frozen=True)
class Recalled:
    memory: Memory
    relevance: float  # 0..1+, the hybrid score against the message
    score: float  # relevance, recency and importance together
    reason: str  # "matched 'database' 0.81 · used 3 days ago · importance 4"
    tokens: int


@dataclass(frozen=True)
class Recall:
    recalled: tuple[Recalled, ...]
    near_misses: tuple[Recalled, ...]  # pinned memories left out first (all of them), then the others
    elapsed_ms: float
    pinned_left_out: int = 0  # pinned memories over memory.maxTokens, not sent


def pins_over_budget_note(count: int, max_tokens: int) -> str:
    """What a request's context says when pinned memories did not fit in ``memory.maxTokens``."""
    what = "1 pinned memory was" if count == 1 else f"{count} pinned memories were"
    return (
        f"{what} left out: the pinned memories are over memory.maxTokens ({max_tokens} tokens); "
        "raise memory.maxTokens in agent.yaml or unpin some memories"
    )


def pins_over_budget_warning(memories: Iterable[Memory], max_tokens: int) -> str:
    """A warning when the active pinned ``memories`` together are over ``memory.maxTokens``
    (some of them are then left out of every request), else ""."""
    pinned = [m for m in memories if m.tier == "pinned" and m.status == "active"]
    tokens = sum(_tokens(m.text) for m in pinned)
    if tokens <= max_tokens:
        return ""
    return (
        f"The {len(pinned)} pinned memories take {tokens:,} tokens, over memory.maxTokens ({max_tokens}): "
        "the ones that do not fit are left out of every request. Raise memory.maxTokens in agent.yaml "
        "or unpin some memories."
    )


def _tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


def recall(
    index: MemoryIndex,
    message: str,
    query_vector: Vector,
    config: MemoryConfig,
    *,
    session_id: str | None,
    excluded: Collection[str] = (),
    forced: Collection[str] = (),
    facets: FacetSpace | None = None,
    count_tokens: Callable[[str], int] = _tokens,
    now: float | None = None,
) -> Recall:
    """The memories ``message`` recalls in chat ``session_id``: ``excluded`` are ids turned off for
    it; ``forced`` ids the user added to it (recalled like pinned ones, whatever they match)."""
    started = time.perf_counter()
    now = time.time() if now is None else now
    if config.max_recalled == 0 or config.max_tokens == 0:
        return Recall((), (), 0.0)
    floor = config.min_relevance - NEAR_MISS_MARGIN
    match = index.match(message, query_vector, keep_vectors_from=floor, facets=facets, people=True)
    memories, fields = match.memories, match.fields
    if not memories:
        return Recall((), (), (time.perf_counter() - started) * 1000)
    relevance = match.cosines + LEXICAL_WEIGHT * match.lexical
    # A memory naming the person the message calls "my son" or "my boss" is about them, whatever
    # else it says.
    about_person = np.zeros(len(memories), bool)
    if match.people:
        about_person[list(match.people)] = True
        relevance = np.where(about_person, relevance + PERSON_BONUS, relevance)
    needed_facet = np.full(len(memories), -1)
    if match.by_facet is not None and match.facet_of is not None:
        needed_facet = np.where(match.by_facet > relevance, match.facet_of, -1)
        relevance = np.maximum(relevance, match.by_facet)
    eligible = fields.active & (fields.expires > now) & (~fields.chat_only | (fields.session == session_id))
    if excluded:
        eligible &= np.fromiter((m.id not in excluded for m in memories), bool, len(memories))
    recency = 0.995 ** (np.maximum(0.0, now - fields.last_seen) / HOUR)
    total = (
        RELEVANCE_SHARE * np.minimum(1.0, relevance)
        + RECENCY_SHARE * recency
        + IMPORTANCE_SHARE * (fields.importance - 1) / 4
    )
    query_words = set(lexical_tokens(message))

    def scored(i: int, why: str | None = None) -> Recalled:
        m = memories[i]
        if why is None and needed_facet[i] >= 0 and facets is not None:
            facet = facets.facets[int(needed_facet[i])].name
            why = f"needed for {facet} {relevance[i]:.2f} · {_reason(m, float(relevance[i]), query_words, now).split(' · ', 1)[1]}"
        if why is None and about_person[i] and needed_facet[i] < 0:
            why = _reason(m, float(relevance[i]), query_words, now, person=match.people[i])
        if why is None and m.id in forced and m.tier != "pinned":
            why = f"added to this chat by you · {_reason(m, float(relevance[i]), query_words, now)}"
        reason = why or _reason(m, float(relevance[i]), query_words, now)
        return Recalled(m, float(relevance[i]), float(total[i]), reason, count_tokens(m.text))

    always = fields.pinned
    if forced:
        always = always | np.fromiter((m.id in forced for m in memories), bool, len(memories))
    # Pinned ones take the budget first, the most important (then the most relevant) first;
    # forced ones (the user added them to this chat) always go in.
    pinned = np.flatnonzero(eligible & always)
    pinned = pinned[np.lexsort((-relevance[pinned], -fields.importance[pinned]))]
    candidates = eligible & ~always
    best = float(relevance[candidates].max()) if candidates.any() else 0.0
    floor_here = max(config.min_relevance, best - RELATIVE_MARGIN)
    matching = np.flatnonzero(candidates & (relevance >= floor_here))
    matching = matching[np.argsort(-total[matching], kind="stable")]
    chosen: list[Recalled] = []
    chosen_rows: list[int] = []
    misses: list[Recalled] = []
    pins_out: list[Recalled] = []
    tokens = 0
    for row in [*pinned.tolist(), *matching.tolist()]:  # pinned (and forced) first
        full = len(chosen) >= config.max_recalled or tokens >= config.max_tokens
        if full and not always[row] and len(misses) >= NEAR_MISSES_KEPT:
            break  # the rest could neither be recalled nor shown: reasons are not worth writing
        # Only rows near the query (and pinned ones) carry vectors; a forced one far from it
        # cannot duplicate those and is kept.
        vector = match.vectors.get(row)
        if vector is not None and any(
            float(vector @ match.vectors[other]) >= NEAR_DUPLICATE
            for other in chosen_rows
            if other in match.vectors
        ):
            continue
        cost = count_tokens(memories[row].text)
        if always[row] and memories[row].id not in forced and tokens + cost > config.max_tokens:
            over = f"pinned, but over memory.maxTokens ({config.max_tokens} tokens) with the pinned memories before it"
            pins_out.append(scored(row, over))
        elif always[row] or (tokens + cost <= config.max_tokens and len(chosen) < config.max_recalled):
            chosen.append(scored(row))
            chosen_rows.append(row)
            tokens += cost
        elif len(misses) < NEAR_MISSES_KEPT:
            misses.append(scored(row, "over the memory budget (memory.maxTokens / maxRecalled)"))
    below = np.flatnonzero(candidates & (relevance >= floor) & (relevance < floor_here))
    for row in below[np.argsort(-relevance[below], kind="stable")][: NEAR_MISSES_KEPT - len(misses)].tolist():
        if relevance[row] < config.min_relevance:
            why = f"matched {relevance[row]:.2f}, under memory.minRelevance {config.min_relevance:.2f}"
        else:
            why = f"matched {relevance[row]:.2f}, far under the best match ({best:.2f})"
        misses.append(scored(row, why))
    elapsed = (time.perf_counter() - started) * 1000
    return Recall(tuple(chosen), (*pins_out, *misses), elapsed, len(pins_out))


def _reason(memory: Memory, relevance: float, query_words: set[str], now: float, *, person: str = "") -> str:
    if memory.tier == "pinned":
        head = "pinned"
    else:
        shared = [w for w in lexical_tokens(memory.text) if w in query_words]
        words = ", ".join(f"'{w}'" for w in dict.fromkeys(shared) if w)
        if words:
            head = f"matched {words} {relevance:.2f}" + (f" · about {person}" if person else "")
        else:
            head = f"about {person} {relevance:.2f}" if person else f"close in meaning {relevance:.2f}"
    used = (
        f"used {_ago(now - memory.last_used_at)}"
        if memory.last_used_at
        else f"saved {_ago(now - memory.created_at)}"
    )
    return f"{head} · {used} · importance {memory.importance}"


def _ago(seconds: float) -> str:
    days = seconds / 86400
    if days < 1:
        return "today"
    if days < 2:
        return "yesterday"
    if days < 60:
        return f"{int(days)} days ago"
    return f"{int(days / 30)} months ago"
