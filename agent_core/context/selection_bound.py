"""The hard bound on what selection gives one message: at most ``topN`` items, whatever put them in.

The indexer includes an item for several reasons: the whole message matched it, one clause of a
compound message did, one of its examples did, the user taught it, or it scored at least
``includeScore``. Each mechanism has its own rules, and together they could flood a request (a
compound message over a large library offered 27 skills). This bound is applied last, over all
kinds together: the ``top_n`` best-scored items stay, the others become near-misses saying so.
"""

from __future__ import annotations

from collections.abc import Sequence

from indexer import ScoredDocument

__all__ = ["bounded", "over_top_n_reason"]


def bounded(
    included: Sequence[ScoredDocument], top_n: int
) -> tuple[tuple[ScoredDocument, ...], tuple[ScoredDocument, ...]]:
    """The ``top_n`` best-scored of ``included`` (ties keep the indexer's order), and the rest,
    best first."""
    ranked = sorted(included, key=lambda candidate: -candidate.score)
    keep = max(top_n, 0)
    return tuple(ranked[:keep]), tuple(ranked[keep:])


def over_top_n_reason(top_n: int) -> str:
    """Why an item the indexer included was left out by the bound, in words for View Context."""
    higher = "1 item" if top_n == 1 else f"{top_n} items"
    return f"over topN: {higher} scored higher"
