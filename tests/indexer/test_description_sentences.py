"""A skill is judged on its name and description; a description of several sentences is also
matched sentence by sentence, so that a message about one thing the skill does meets the sentence
that says it rather than the mean of all of them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from indexer import Document, Indexer
from indexer._body_noise import body_chunk_mask
from indexer._strategies import chunks
from indexer._texts import DESCRIPTION_SENTENCES_MAX, description_sentences, hybrid_chunks
from indexer.backends import EmbeddingBackend

CATALOGUE = Path(__file__).resolve().parents[2] / "benchmarks" / "skills" / "catalogue.jsonl"
DEBUG = Document(
    "skill:debug",
    "skill",
    "root-cause",
    "Root cause analysis for bugs.  Use when something is broken,\ncrashing or slow.",
    "",
)


def test_each_sentence_of_a_skill_s_description_is_a_chunk_that_names_the_skill() -> None:
    assert description_sentences(DEBUG) == [
        "root cause: Root cause analysis for bugs.",
        "root cause: Use when something is broken, crashing or slow.",
    ]
    # After the whole head, which stays first (near twins compare heads).
    assert hybrid_chunks(DEBUG)[0].startswith("root-cause: Root cause analysis for bugs.")
    assert hybrid_chunks(DEBUG)[1:] == description_sentences(DEBUG)


def test_one_sentence_other_kinds_and_long_descriptions() -> None:
    single = Document("skill:x", "skill", "x", "Convert markdown files to docx.", "")
    assert description_sentences(single) == []
    note = Document("reference:x", "reference", "x", "One. Two.", "Body.")
    assert description_sentences(note) == []  # its body is matched paragraph by paragraph already
    pasted = Document("skill:x", "skill", "x", " ".join(f"Sentence {n}." for n in range(100)), "")
    assert len(description_sentences(pasted)) == DESCRIPTION_SENTENCES_MAX


def test_the_sentences_are_description_not_body() -> None:
    # So a large library's mark-down of body chunks never touches them.
    skill = Document("skill:s", "skill", "s", "Does one thing. Use when another.", "Step one.\n\nStep two.")
    texts = chunks("hybrid", skill)
    mask = body_chunk_mask([skill], texts, np.zeros(len(texts), dtype=np.intp), lambda d: chunks("hybrid", d))
    assert [t for t, body in zip(texts, mask, strict=True) if body] == ["Step one.", "Step two."]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("message", "expected"),
    [
        # Found by no single sentence's mean before: nothing, and constant-time-testing.
        (
            "The build on my pull request went red after the last push, can you figure out why the "
            "workflow fails and fix it?",
            "skill:gh-fix-ci",
        ),
        ("Is this AES comparison vulnerable to timing attacks?", "skill:constant-time-analysis"),
    ],
)
def test_real_skills_are_found_by_the_sentence_that_says_what_is_asked(
    minilm: EmbeddingBackend, message: str, expected: str
) -> None:
    rows = [json.loads(line) for line in CATALOGUE.read_text(encoding="utf-8").splitlines() if line]
    skills = [Document(f"skill:{r['name']}", "skill", r["name"], r["description"], "") for r in rows]
    indexer = Indexer(lambda: minilm)
    try:
        chosen = indexer.select(message, skills)
        assert chosen.included and chosen.included[0].key == expected
    finally:
        indexer.close()
