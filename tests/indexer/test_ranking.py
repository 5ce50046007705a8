"""Ranking rules on crafted scores and vectors (no model: these test decisions, not embeddings)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from indexer import Document, Indexer, SelectionSettings
from indexer.ranking import best_chunk_per_item, rank_anchor, rank_hybrid
from tests.support.indexer_fakes import CraftedBackend

ANCHOR = SelectionSettings(strategy="anchor")


def _scores(*values: float) -> np.ndarray:
    return np.asarray(values, dtype=np.float32)


def _items(*values: int) -> np.ndarray:
    return np.asarray(values, dtype=np.intp)


def _docs(count: int) -> np.ndarray:
    """An is_tool mask with no tools."""
    return np.zeros(count, dtype=np.bool_)


def test_best_chunk_per_item_takes_the_max_and_the_earliest_tie() -> None:
    best, chunk = best_chunk_per_item(_scores(0.2, 0.5, 0.5, 0.1), _items(0, 0, 0, 2), 3)
    assert best[0] == pytest.approx(0.5)
    assert chunk.tolist() == [1, -1, 3]
    assert best[1] == -np.inf


def test_anchor_fills_up_to_top_n_even_with_poor_scores() -> None:
    ranked = rank_anchor(_scores(0.3, 0.2, 0.1, 0.05, 0.01, 0.0), _items(0, 1, 2, 3, 4, 5), 6, ANCHOR).rows()
    assert [r.item for r in ranked if r.included] == [0, 1, 2, 3, 4]
    assert [r.reason for r in ranked] == ["within_top_n"] * 5 + ["outside_top_n"]


def test_anchor_includes_everything_above_include_score_beyond_top_n() -> None:
    settings = SelectionSettings(strategy="anchor", top_n=2)
    ranked = rank_anchor(_scores(0.9, 0.8, 0.75, 0.71, 0.69), _items(0, 1, 2, 3, 4), 5, settings).rows()
    assert [(r.item, r.included, r.reason) for r in ranked] == [
        (0, True, "above_include_score"),
        (1, True, "above_include_score"),
        (2, True, "above_include_score"),
        (3, True, "above_include_score"),
        (4, False, "outside_top_n"),
    ]


def test_anchor_groups_the_top_k_chunks_by_item_keeping_the_best() -> None:
    # Item 0 owns the three best chunks, so with top_k=3 no other item is even considered.
    settings = SelectionSettings(strategy="anchor", top_k=3)
    ranked = rank_anchor(_scores(0.6, 0.5, 0.4, 0.3, 0.2), _items(0, 0, 0, 1, 2), 3, settings).rows()
    assert [(r.item, r.included, r.reason) for r in ranked] == [
        (0, True, "within_top_n"),
        (1, False, "not_in_top_k"),
        (2, False, "not_in_top_k"),
    ]
    assert ranked[0].chunk == 0
    assert ranked[1].score == pytest.approx(0.3)


def test_anchor_breaks_ties_by_chunk_order() -> None:
    settings = SelectionSettings(strategy="anchor", top_n=1)
    ranked = rank_anchor(_scores(0.5, 0.5), _items(1, 0), 2, settings).rows()
    assert [(r.item, r.included) for r in ranked] == [(1, True), (0, False)]


def test_anchor_top_k_ties_are_deterministic_with_many_chunks() -> None:
    scores = np.full(1000, 0.5, dtype=np.float32)
    settings = SelectionSettings(strategy="anchor", top_k=3, top_n=10)
    ranked = rank_anchor(scores, np.arange(1000, dtype=np.intp), 1000, settings).rows()
    assert [r.item for r in ranked if r.included] == [0, 1, 2]


def test_hybrid_picks_nothing_when_nothing_reaches_the_floor() -> None:
    settings = SelectionSettings(min_score=0.35)
    ranked = rank_hybrid(_scores(0.34, 0.2), _items(0, 1), _scores(0, 0), _docs(2), settings).rows()
    assert [(r.included, r.reason) for r in ranked] == [(False, "below_floor"), (False, "below_floor")]


def test_hybrid_drops_items_far_from_the_best_and_caps_at_top_n() -> None:
    settings = SelectionSettings(min_score=0.3, max_gap=0.1, top_n=2, lexical_weight=0)
    ranked = rank_hybrid(
        _scores(0.6, 0.55, 0.52, 0.45, 0.2), _items(0, 1, 2, 3, 4), _scores(0, 0, 0, 0, 0), _docs(5), settings
    ).rows()
    assert [r.reason for r in ranked] == [
        "within_top_n",
        "within_top_n",
        "outside_top_n",
        "far_from_best",
        "below_floor",
    ]


def test_hybrid_always_includes_scores_above_include_score() -> None:
    settings = SelectionSettings(top_n=1, include_score=0.7)
    ranked = rank_hybrid(
        _scores(0.9, 0.71, 0.5), _items(0, 1, 2), _scores(0, 0, 0), _docs(3), settings
    ).rows()
    assert [r.included for r in ranked] == [True, True, False]


def test_hybrid_adds_the_weighted_lexical_score() -> None:
    settings = SelectionSettings(lexical_weight=0.5, min_score=0.0, max_gap=1.0)
    ranked = rank_hybrid(_scores(0.4, 0.5), _items(0, 1), _scores(1.0, 0.0), _docs(2), settings).rows()
    assert ranked[0].item == 0
    assert ranked[0].score == pytest.approx(0.9)
    assert ranked[0].cosine == pytest.approx(0.4)


def _at(cosine: float) -> list[float]:
    """A unit vector at ``cosine`` to the query direction (1, 0, 0, 0)."""
    return [cosine, math.sqrt(1 - cosine**2), 0.0, 0.0]


def test_the_anchor_strategy_through_the_indexer_uses_anchor_item_texts() -> None:
    backend = CraftedBackend(
        {
            "query": [1, 0, 0, 0],
            "alpha: first rule": _at(0.75),
            "Body paragraph of alpha.": _at(0.9),
            "beta": _at(0.3),
            "Body of beta.": _at(0.2),
            "lookup: find things": _at(0.5),
        }
    )
    docs = [
        Document("rule:alpha", "rule", "alpha", "first rule", "Body paragraph of alpha."),
        Document("reference:beta", "reference", "beta", "", "Body of beta."),
        # The anchor embeds only "name: description" for tools: the parameter text is ignored.
        Document("tool:s/lookup", "tool", "lookup", "find things", "ignored", server="s"),
    ]
    indexer = Indexer(lambda: backend)
    selection = indexer.select("query", docs, SelectionSettings(strategy="anchor", top_n=2))
    assert [(c.key, round(c.score, 4), c.included, c.reason) for c in selection.candidates] == [
        ("rule:alpha", 0.9, True, "above_include_score"),
        ("tool:s/lookup", 0.5, True, "within_top_n"),
        ("reference:beta", 0.3, False, "outside_top_n"),
    ]
    assert selection.candidates[0].best_chunk == "Body paragraph of alpha."
    assert "ignored" not in backend.embedded


def test_settings_reject_impossible_values() -> None:
    with pytest.raises(ValueError, match="top_k"):
        SelectionSettings(top_k=0)


def test_hybrid_measures_the_gap_per_domain_and_offsets_tools() -> None:
    # A strong rule does not push out the best tool: each domain has its own best.
    settings = SelectionSettings(min_score=0.4, max_gap=0.05, tool_offset=0.1, lexical_weight=0)
    is_tool = np.array([False, False, True, True])
    ranked = rank_hybrid(
        _scores(0.65, 0.55, 0.35, 0.28), _items(0, 1, 2, 3), _scores(0, 0, 0, 0), is_tool, settings
    )
    assert [(r.item, round(r.score, 3), r.reason) for r in ranked.rows()] == [
        (0, 0.65, "within_top_n"),
        (1, 0.55, "far_from_best"),
        (2, 0.45, "within_top_n"),
        (3, 0.38, "below_floor"),
    ]
    assert ranked.row(2).cosine == pytest.approx(0.35)
