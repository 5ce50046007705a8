"""Near twins: of two chosen items whose names and descriptions say the same thing, only the
better-scored one is offered; items a message needs together, notes on one topic chosen for their
own facts, tools and the user's corrections are kept."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from indexer import Document, Indexer, SelectionSettings
from indexer._twins import head_chunks, twins_of_better
from indexer.backends import EmbeddingBackend
from indexer.ranking import REASONS, VIA_WHOLE, Ranking, merge_rankings, without_twins

ITEMS = Path(__file__).resolve().parents[2] / "benchmarks" / "selection" / "scale" / "items.jsonl"


def unit(*values: float) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_each_item_s_head_is_its_first_chunk() -> None:
    chunk_item = np.asarray([0, 0, 0, 2, 2, 3], dtype=np.intp)
    assert head_chunks(chunk_item, 5).tolist() == [0, -1, 3, 5, -1]


def test_a_twin_of_a_better_item_is_folded_and_a_different_item_is_not() -> None:
    # Heads: 0's and 1's are 0.8 alike; 2's is unlike both.
    matrix = np.stack([unit(1, 0, 0), unit(0.8, 0.6, 0), unit(0, 0, 1)])
    heads = np.arange(3, dtype=np.intp)
    by_head = np.ones(3, dtype=np.bool_)
    chosen = np.asarray([0, 1, 2], dtype=np.intp)
    assert twins_of_better(chosen, matrix, heads, by_head, 0.7).tolist() == [1]
    assert twins_of_better(chosen, matrix, heads, by_head, 0.85).tolist() == []
    # The better-scored one (first) is the one kept, whichever it is.
    assert twins_of_better(np.asarray([1, 0, 2]), matrix, heads, by_head, 0.7).tolist() == [0]


def test_an_item_without_a_chunk_is_never_folded() -> None:
    matrix = np.stack([unit(1, 0)])
    heads = np.asarray([0, -1], dtype=np.intp)
    assert twins_of_better(np.asarray([0, 1]), matrix, heads, np.ones(2, dtype=np.bool_), 0.7).tolist() == []


def test_items_not_chosen_for_their_head_are_never_folded() -> None:
    # Tools, and notes chosen for their own facts rather than their (alike) descriptions.
    matrix = np.stack([unit(1, 0), unit(1, 0.01)])
    by_head = np.asarray([True, False])
    assert twins_of_better(np.asarray([0, 1]), matrix, np.arange(2), by_head, 0.7).tolist() == []


def test_a_negative_similarity_is_refused_with_the_fix() -> None:
    with pytest.raises(ValueError, match="1 turns folding twins off"):
        SelectionSettings(twin_similarity=-0.1)


@pytest.fixture(scope="module")
def library() -> list[Document]:
    """Real skills of the selection-at-scale set, a pair of near twins among them, judged on their
    names and descriptions as the app judges skills."""
    wanted = {
        "drawio",
        "draw-io-diagram-generator",
        "excalidraw-diagram-generator",
        "postmortem-writing",
        "md-to-docx",
        "pdftk-server",
        "slack-automation",
        "mermaid-tools",
    }
    rows = [json.loads(line) for line in ITEMS.read_text(encoding="utf-8").splitlines() if line]
    return [
        Document(f"skill:{r['name']}", "skill", r["name"], r["description"], "")
        for r in rows
        if r["name"] in wanted
    ]


DRAW = "draw our architecture as a .drawio file and export it to png"


@pytest.mark.slow
def test_the_better_twin_is_offered_and_the_other_is_a_near_miss(
    minilm: EmbeddingBackend, library: list[Document]
) -> None:
    indexer = Indexer(lambda: minilm)
    try:
        both = indexer.select(DRAW, library, SelectionSettings(twin_similarity=1.0))
        assert {"skill:drawio", "skill:draw-io-diagram-generator"} <= {c.key for c in both.included}
        folded = indexer.select(DRAW, library, SelectionSettings())
        assert [c.key for c in folded.included] == ["skill:drawio"]
        reason = {c.key: c.reason for c in folded.candidates}
        assert reason["skill:draw-io-diagram-generator"] == "twin_of_better"
    finally:
        indexer.close()


@pytest.mark.slow
def test_items_a_message_needs_together_are_both_kept(
    minilm: EmbeddingBackend, library: list[Document]
) -> None:
    indexer = Indexer(lambda: minilm)
    try:
        chosen = indexer.select("merge these pdfs and convert the summary.md to docx", library)
        assert {c.key for c in chosen.included} == {"skill:pdftk-server", "skill:md-to-docx"}
    finally:
        indexer.close()


@pytest.mark.slow
def test_notes_on_one_topic_are_not_twins(minilm: EmbeddingBackend) -> None:
    # Descriptions alike, each note its own facts: the message matches each with its own words.
    facts = [
        "Saw Jupiter's four Galilean moons through the 10x50 binoculars from the garden.",
        "The Perseid meteor shower peaks on 12 August; about 60 meteors an hour after midnight.",
        "Saturn's rings were nearly edge-on this year, so the planet looked like a bright dot.",
    ]
    notes = [
        Document(f"reference:stars-{n}", "reference", f"stars-{n}", f"astronomy note {n}", fact)
        for n, fact in enumerate(facts)
    ]
    indexer = Indexer(lambda: minilm)
    try:
        chosen = indexer.select("what did I see of jupiter, the perseids and saturn?", notes)
        assert not [c.key for c in chosen.candidates if c.reason == "twin_of_better"]
    finally:
        indexer.close()


@pytest.mark.slow
def test_a_twin_the_user_added_after_this_message_comes_in(
    minilm: EmbeddingBackend, library: list[Document]
) -> None:
    taught = [replace(d, learned=(DRAW,)) if d.name == "draw-io-diagram-generator" else d for d in library]
    indexer = Indexer(lambda: minilm)
    try:
        chosen = {c.key for c in indexer.select(DRAW, taught, SelectionSettings()).included}
        assert {"skill:drawio", "skill:draw-io-diagram-generator"} <= chosen
    finally:
        indexer.close()


def _ranking(scores: list[float], reasons: list[str]) -> Ranking:
    codes = np.asarray([REASONS.index(r) for r in reasons], dtype=np.int8)
    count = len(scores)
    return Ranking(
        np.asarray(scores, dtype=np.float32),
        np.asarray(scores, dtype=np.float32),
        np.arange(count, dtype=np.intp),
        codes,
        np.arange(count, dtype=np.intp),
    )


def test_a_folded_twin_frees_its_place_for_the_best_item_top_n_kept_out() -> None:
    ranking = _ranking(
        [0.9, 0.8, 0.7, 0.6, 0.5],
        ["within_top_n", "within_top_n", "outside_top_n", "outside_top_n", "below_floor"],
    )
    refilled = without_twins(ranking, np.asarray([1]), top_n=2)
    assert [r.reason for r in refilled.rows()] == [
        "within_top_n",
        "twin_of_better",
        "within_top_n",
        "outside_top_n",
        "below_floor",
    ]
    # Without a bound to refill, the place stays empty.
    assert [bool(i) for i in without_twins(ranking, np.asarray([1])).included] == [
        True,
        False,
        False,
        False,
        False,
    ]


def test_no_place_is_freed_while_items_above_include_score_fill_top_n() -> None:
    ranking = _ranking(
        [0.95, 0.9, 0.85, 0.6],
        ["above_include_score", "above_include_score", "above_include_score", "outside_top_n"],
    )
    refilled = without_twins(ranking, np.asarray([2]), top_n=2)
    assert refilled.reason[3] == REASONS.index("outside_top_n")


def test_an_item_refilled_after_a_merge_says_which_view_wanted_it() -> None:
    # The whole message's view kept item 2 out for top_n only; a clause's view did not want it.
    whole = _ranking([0.9, 0.8, 0.7], ["within_top_n", "within_top_n", "outside_top_n"])
    clause = _ranking([0.3, 0.3, 0.3], ["below_floor", "below_floor", "below_floor"])
    merged = merge_rankings([whole, clause], top_n=2)
    refilled = without_twins(merged, np.asarray([1]), top_n=2)
    assert refilled.included.tolist() == [True, False, True]
    assert refilled.via is not None and int(refilled.via[2]) == VIA_WHOLE
