"""In a library of thousands of body chunks some chunk of some item matches almost any message by
chance, so past the size the floors were set on, a body chunk needs a better match than a name or
a description to count the same. Crafted vectors stand in for the model (the ranking is what is
tested); the figures behind the slope are in indexer/_body_noise.py and docs/selection.md."""

from __future__ import annotations

import math

import numpy as np
import pytest

from indexer import Document, Indexer, SelectionSettings, tool_document
from indexer._body_noise import body_chunk_mask, body_discount
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


def test_the_mark_down_can_be_turned_off() -> None:
    got = included(1_200, SelectionSettings(body_noise_slope=0.0))
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
    with pytest.raises(ValueError, match="body_noise_slope cannot be negative"):
        SelectionSettings(body_noise_slope=-0.1)
