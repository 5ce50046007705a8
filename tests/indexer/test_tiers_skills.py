"""Indexing a large library of skills in tiers: a skill has no body, and what its first selection
leaves for the background is its description sentence by sentence (most of its chunks)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from agent_core.agent.schema import SelectionConfig
from agent_core.context.items import ItemRef
from agent_core.context.judged_short import judged_short_reason, judged_short_summary
from agent_core.context.selection import Candidate, ContextSelector
from indexer import Document, Indexer
from indexer._texts import description_sentences
from indexer.backends import EmbeddingBackend
from tests.support.indexer_fakes import RecordingBackend
from tests.support.tier_documents import WAIT, skill_documents

pytestmark = pytest.mark.slow

# skill-003 is a real skill's description: "Use this skill when designing or reviewing a
# PostgreSQL-specific schema. Covers best-practices, data types, indexing, constraints, ..."
MESSAGE = "which data types and constraints should this postgres table use?"


def _skills(count: int) -> list[Document]:
    """Skills as the app gives them to the indexer: name and description, no text."""
    return [replace(document, text="", examples=()) for document in skill_documents(count)]


def _sentences(documents: list[Document]) -> set[str]:
    return {sentence for document in documents for sentence in description_sentences(document)}


def _candidates(skills: list[Document]) -> list[Candidate]:
    return [Candidate(ItemRef("skill", s.name), s) for s in skills]


def _indexer(backend: EmbeddingBackend, cache: Path, min_chunks: int) -> tuple[Indexer, RecordingBackend]:
    recording = RecordingBackend(backend)
    indexer = Indexer(lambda: recording, cache_dir=cache)
    indexer.tiers.min_chunks = min_chunks
    return indexer, recording


def test_a_large_library_of_skills_is_first_judged_on_whole_descriptions_and_then_sentence_by_sentence(
    minilm: EmbeddingBackend, tmp_path: Path
) -> None:
    skills = _skills(24)
    sentences = _sentences(skills)
    assert len(sentences) > 24  # most of the library's chunks are its sentences
    indexer, recording = _indexer(minilm, tmp_path, min_chunks=20)
    first = indexer.select(MESSAGE, skills, bodies_later=True)
    assert not sentences & set(recording.embedded)  # the first answer waited for no sentence
    assert first.timings.chunks == len(skills)  # one chunk a skill: its name and description
    assert first.description_only == {s.key for s in skills if description_sentences(s)}
    postgres = next(c for c in first.candidates if c.key == "skill:skill-003")
    assert postgres.best_chunk.startswith("skill-003: Use this skill when designing")  # the whole head
    indexer.index_in_background(skills)
    assert indexer.tiers.wait_until_done(WAIT) and indexer.tiers.error is None
    assert sentences <= set(recording.embedded)
    later = indexer.select(MESSAGE, skills, bodies_later=True)
    assert later.description_only == frozenset()
    assert later.timings.chunks == len(skills) + len(sentences)  # now sentence by sentence too
    indexer.close()


def test_a_small_library_of_skills_is_matched_sentence_by_sentence_from_its_first_selection(
    minilm: EmbeddingBackend, tmp_path: Path
) -> None:
    skills = _skills(6)
    indexer, recording = _indexer(minilm, tmp_path, min_chunks=2_000)
    first = indexer.select(MESSAGE, skills, bodies_later=True)
    assert first.description_only == frozenset()
    assert _sentences(skills) <= set(recording.embedded)
    indexer.close()


def test_a_skill_judged_before_its_sentences_says_so_in_its_own_words(
    minilm: EmbeddingBackend, tmp_path: Path
) -> None:
    skills = _skills(24)
    # min_chunks low: the selector folds the copies of a description, leaving six skills.
    indexer, _ = _indexer(minilm, tmp_path, min_chunks=5)
    selector = ContextSelector(indexer, bodies_in_background=False)
    candidates = _candidates(skills)
    outcome = asyncio.run(selector.select(MESSAGE, candidates, SelectionConfig()))
    chosen = next(item for item in outcome.items if item.ref.name == "skill-003")
    assert "judged on its whole description only (its sentences are not indexed yet)" in chosen.reason
    assert "body" not in chosen.reason  # a skill has none to wait for
    assert judged_short_reason(chosen.ref, still_indexing=True).endswith(
        "(its sentences are still being indexed)"
    )
    summary = judged_short_summary(outcome.run.description_only, still_indexing=False)
    assert (
        summary
        == f"{len(outcome.run.description_only)} skills judged on the whole description only (sentences not indexed yet)"
    )
    indexer.close()


def test_indexing_a_large_library_of_skills_ahead_says_their_sentences_follow(
    minilm: EmbeddingBackend, tmp_path: Path
) -> None:
    skills = _skills(24)
    indexer, recording = _indexer(minilm, tmp_path, min_chunks=5)
    selector = ContextSelector(indexer)
    candidates = _candidates(skills)
    done = asyncio.run(selector.index_ahead(candidates, SelectionConfig()))
    kept = {s.description for s in skills}  # copies of one description are folded
    split = {d for d in kept if description_sentences(replace(skills[0], description=d))}
    assert (done.items, done.bodies_left, done.follows) == (len(kept), len(split), "sentences")
    assert indexer.tiers.wait_until_done(WAIT) and indexer.tiers.error is None
    assert _sentences(skills) & set(recording.embedded)  # the background embedded them
    indexer.close()
