"""In a library of thousands of body chunks some chunk of some item matches almost any message by
chance, so past the size the floors were set on, a body chunk needs a better match than a name or
a description to count the same. Crafted vectors stand in for the model (the ranking is what is
tested); the figures behind the slope are in indexer/_body_noise.py and docs/selection.md."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from indexer import Document, Indexer, SelectionSettings, tool_document
from indexer._body_noise import (
    MAX_HEAD_AGREEMENT,
    body_chunk_mask,
    body_discount,
    head_agreement_share,
    with_head_agreement,
)
from indexer._strategies import chunks
from tests.support.indexer_fakes import CraftedBackend

QUERY = "qqq zzz"  # no word any document uses: only the crafted cosines decide
COSINE = 0.47  # above the floor (0.45), but not by the discount of a large library


def at_cosine(cosine: float) -> list[float]:
    return [cosine, math.sqrt(1 - cosine**2), 0.0, 0.0]


def library(fillers: int) -> list[Document]:
    """Two items the query matches equally well, one by its description and one by one paragraph
    of its body, among ``fillers`` items of two body paragraphs each that it does not match."""
    described = Document("reference:sorting", "reference", "sorting", "Sort lists and tables", "How we sort.")
    hidden = Document(
        "reference:costs",
        "reference",
        "costs",
        "LLM spend report",
        "Intro.\n\nSort by: model and token count.",
    )
    filler = [
        Document(
            f"reference:f{i}", "reference", f"f{i}", f"topic {i}", f"First part {i}.\n\nSecond part {i}."
        )
        for i in range(fillers)
    ]
    return [described, hidden, *filler]


def crafted() -> CraftedBackend:
    return CraftedBackend(
        {
            QUERY: [1.0, 0.0, 0.0, 0.0],
            "sorting: Sort lists and tables": at_cosine(COSINE),
            "Sort by: model and token count.": at_cosine(COSINE),
        }
    )


def included(fillers: int, settings: SelectionSettings) -> dict[str, float]:
    backend = crafted()
    indexer = Indexer(lambda: backend)
    try:
        selection = indexer.select(QUERY, library(fillers), settings)
        scores = {c.key: c.score for c in selection.candidates}
        return {key: scores[key] for key in (c.key for c in selection.included)}
    finally:
        indexer.close()


def test_in_a_large_library_a_body_chunk_needs_a_better_match_than_a_description() -> None:
    got = included(1_200, SelectionSettings())  # 2,400 body chunks
    assert "reference:sorting" in got
    assert "reference:costs" not in got


def test_a_small_library_scores_body_chunks_as_they_match() -> None:
    got = included(300, SelectionSettings())  # 600 body chunks: under the reference
    assert got.keys() >= {"reference:sorting", "reference:costs"}
    assert got["reference:costs"] == pytest.approx(COSINE, abs=1e-4)


def test_the_mark_downs_can_be_turned_off() -> None:
    got = included(1_200, SelectionSettings(body_noise_slope=0.0, head_agreement_slope=0.0))
    assert got.keys() >= {"reference:sorting", "reference:costs"}


def test_the_mark_down_grows_with_the_log_of_the_body_chunks_past_the_reference() -> None:
    assert body_discount(1_000, 0.04, 1_000) == 0.0
    assert body_discount(500, 0.04, 1_000) == 0.0
    assert body_discount(15_309, 0.04, 1_000) == pytest.approx(0.04 * math.log(15.309))
    assert body_discount(15_309, 0.0, 1_000) == 0.0


def test_names_descriptions_examples_and_tools_are_never_body() -> None:
    guide = Document(
        "reference:guide",
        "reference",
        "guide",
        "How we deploy",
        "Step one.\n\nStep two.",
        examples=("deploy the api",),
    )
    tool = tool_document("git", "git_diff", "Show changes", {"properties": {"path": {"type": "string"}}})
    documents = [guide, tool]
    texts: list[str] = []
    owners: list[int] = []
    for number, document in enumerate(documents):
        for text in chunks("hybrid", document):
            texts.append(text)
            owners.append(number)
    mask = body_chunk_mask(documents, texts, np.asarray(owners, dtype=np.intp), lambda d: chunks("hybrid", d))
    body = [text for text, is_body in zip(texts, mask, strict=True) if is_body]
    assert body == ["Step one.", "Step two."]


def test_a_negative_slope_is_refused_with_the_fix() -> None:
    with pytest.raises(ValueError, match="body_noise_slope and head_agreement_slope cannot be negative"):
        SelectionSettings(body_noise_slope=-0.1)
    with pytest.raises(ValueError, match="head_agreement_slope cannot be negative"):
        SelectionSettings(head_agreement_slope=-0.1)


def test_the_share_of_the_lead_taken_off_grows_with_the_log_and_is_capped() -> None:
    assert head_agreement_share(1_000, 0.15, 1_000) == 0.0
    assert head_agreement_share(15_309, 0.15, 1_000) == pytest.approx(0.15 * math.log(15.309))
    assert head_agreement_share(10**9, 0.15, 1_000) == MAX_HEAD_AGREEMENT
    assert head_agreement_share(15_309, 0.0, 1_000) == 0.0


def test_only_a_judged_chunk_s_lead_over_its_head_is_cut() -> None:
    scores = np.asarray([0.3, 0.7, 0.2, 0.7], dtype=np.float32)  # a head, two body chunks, a note's
    judged = np.asarray([False, True, True, False])
    heads = np.asarray([0, 0, 0, 3], dtype=np.intp)
    got = with_head_agreement(scores, judged, heads, 0.5)
    # 0.7 leads its head by 0.4 and keeps half of it; 0.2 is under its head and is not raised.
    assert got.tolist() == pytest.approx([0.3, 0.5, 0.2, 0.7])


HEADING = "## Sort by model"
SENTENCE = "Sort the report by model and then by token count."


def agreeing_library(fillers: int, body: str) -> list[Document]:
    """The same body paragraph in three items: one whose description is about it, one whose
    description is not, and a note with no description (its head is only a file name)."""
    about = Document("reference:sorter", "reference", "sorter", "Sort lists", f"Intro.\n\n{body}")
    elsewhere = Document("reference:costs", "reference", "costs", "LLM spend report", f"Intro.\n\n{body}")
    note = Document("reference:note", "reference", "note", "", f"Intro.\n\n{body}")
    return [about, elsewhere, note, *library(fillers)[2:]]


def scores_of(fillers: int, body: str, settings: SelectionSettings) -> dict[str, float]:
    backend = CraftedBackend(
        {QUERY: [1.0, 0.0, 0.0, 0.0], "sorter: Sort lists": at_cosine(0.55), body: at_cosine(0.6)}
    )
    indexer = Indexer(lambda: backend)
    try:
        selection = indexer.select(QUERY, agreeing_library(fillers, body), settings)
        wanted = {"reference:sorter", "reference:costs", "reference:note"}
        return {c.key: c.score for c in selection.candidates if c.key in wanted}
    finally:
        indexer.close()


AS_MATCHED = {"reference:sorter": 0.6, "reference:costs": 0.6, "reference:note": 0.6}


def test_in_a_large_library_a_heading_its_description_does_not_back_loses_part_of_its_lead() -> None:
    settings = SelectionSettings(body_noise_slope=0.0)  # the head agreement alone
    # 1,200 fillers of two body paragraphs, and three items of two: 2,406 body chunks.
    share = head_agreement_share(2_406, settings.head_agreement_slope, settings.body_noise_reference)
    got = scores_of(1_200, HEADING, settings)
    assert got["reference:costs"] == pytest.approx(0.6 - share * 0.6, abs=1e-4)
    assert got["reference:sorter"] == pytest.approx(0.6 - share * 0.05, abs=1e-4)
    assert got["reference:note"] == pytest.approx(0.6, abs=1e-4)  # no description to judge by


def test_a_sentence_and_a_small_library_keep_their_scores() -> None:
    settings = SelectionSettings(body_noise_slope=0.0)
    # A sentence is chosen for what it says, which a description need not repeat.
    assert scores_of(1_200, SENTENCE, settings) == pytest.approx(AS_MATCHED, abs=1e-4)
    assert scores_of(300, HEADING, settings) == pytest.approx(AS_MATCHED, abs=1e-4)
    assert scores_of(1_200, HEADING, replace(settings, head_agreement_slope=0.0)) == pytest.approx(
        AS_MATCHED, abs=1e-4
    )
