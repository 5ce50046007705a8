"""Indexing in tiers: a large set's first selection embeds only names, descriptions and examples;
bodies follow in the background, persist in the cache, and survive a kill."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from indexer import EmbeddingCache, Indexer, _strategies
from indexer.backends import EmbeddingBackend
from tests.support.indexer_fakes import RecordingBackend
from tests.support.tier_documents import MESSAGE, TELESCOPE, WAIT, body_chunks, skill_documents

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def _large(backend: EmbeddingBackend, cache: Path) -> tuple[Indexer, RecordingBackend]:
    recording = RecordingBackend(backend)
    indexer = Indexer(lambda: recording, cache_dir=cache)
    indexer.tiers.min_chunks = 20  # these few dozen items count as a large set
    return indexer, recording


def test_the_first_selection_of_a_large_set_embeds_descriptions_only_and_says_so(
    minilm: EmbeddingBackend, tmp_path: Path
) -> None:
    documents = [*skill_documents(12), TELESCOPE]
    indexer, recording = _large(minilm, tmp_path)
    first = indexer.select(MESSAGE, documents, bodies_later=True)
    bodies = body_chunks(documents)
    assert bodies and not bodies & set(recording.embedded)  # no body chunk embedded yet
    assert first.description_only == {d.key for d in documents}
    handbook = next(c for c in first.candidates if c.key == TELESCOPE.key)
    assert "collimate" not in handbook.best_chunk and not handbook.included
    indexer.close()


def test_bodies_follow_in_the_background_and_then_decide(minilm: EmbeddingBackend, tmp_path: Path) -> None:
    documents = [*skill_documents(12), TELESCOPE]
    indexer, recording = _large(minilm, tmp_path)
    indexer.select(MESSAGE, documents, bodies_later=True)
    indexer.index_in_background(documents)
    assert indexer.tiers.wait_until_done(WAIT)
    assert indexer.tiers.error is None
    assert body_chunks(documents) <= set(recording.embedded)
    later = indexer.select(MESSAGE, documents, bodies_later=True)
    assert later.description_only == frozenset()
    handbook = next(c for c in later.candidates if c.key == TELESCOPE.key)
    assert "collimate" in handbook.best_chunk and handbook.included
    indexer.close()


def test_a_restart_reuses_the_bodies_embedded_before_it(minilm: EmbeddingBackend, tmp_path: Path) -> None:
    documents = [*skill_documents(12), TELESCOPE]
    indexer, _ = _large(minilm, tmp_path)
    indexer.index_in_background(documents)
    assert indexer.tiers.wait_until_done(WAIT)
    indexer.close()
    again, recording = _large(minilm, tmp_path)
    selection = again.select(MESSAGE, documents, bodies_later=True)
    assert selection.description_only == frozenset()
    assert recording.embedded == ["warm up", MESSAGE]  # only the message: every chunk came from the cache
    assert selection.timings.embedded == 0 and selection.timings.from_disk > 0
    again.close()


def test_a_small_set_is_indexed_whole_before_its_first_selection(
    minilm: EmbeddingBackend, tmp_path: Path
) -> None:
    documents = [*skill_documents(2), TELESCOPE]
    recording = RecordingBackend(minilm)
    indexer = Indexer(lambda: recording, cache_dir=tmp_path)  # the default threshold
    selection = indexer.select(MESSAGE, documents, bodies_later=True)
    assert selection.description_only == frozenset()
    assert body_chunks(documents) <= set(recording.embedded)
    assert next(c for c in selection.included if c.key == TELESCOPE.key)
    indexer.close()


def test_a_newer_set_replaces_the_one_in_the_background(minilm: EmbeddingBackend, tmp_path: Path) -> None:
    documents = skill_documents(12)
    edited = [*documents[:-1], TELESCOPE]  # the user removed a skill and added the handbook
    indexer, recording = _large(minilm, tmp_path)
    assert indexer.wait_until_ready(WAIT)
    recording.hold_next_embed()  # the first slice of bodies
    indexer.index_in_background(documents)
    assert recording.entered.wait(WAIT)
    indexer.index_in_background(edited)
    recording.release.set()
    assert indexer.tiers.wait_until_done(WAIT)
    assert indexer.select(MESSAGE, edited, bodies_later=True).description_only == frozenset()
    indexer.close()


def test_closing_stops_the_background_after_its_slice(minilm: EmbeddingBackend, tmp_path: Path) -> None:
    documents = skill_documents(12)
    indexer, recording = _large(minilm, tmp_path)
    assert indexer.wait_until_ready(WAIT)
    recording.hold_next_embed()  # the first slice of bodies
    indexer.index_in_background(documents)
    assert recording.entered.wait(WAIT)
    recording.release.set()
    indexer.close()  # returns once the slice in progress is done and saved
    assert indexer.tiers.wait_until_done(0)
    cache = EmbeddingCache(tmp_path)
    stored = cache.count()
    cache.close()
    assert 0 < stored < len(body_chunks(documents))


_KILLED_SCRIPT = """
import sys
from pathlib import Path
from indexer import Indexer
from indexer.backends import onnx_backend
from tests.indexer.test_tiers import skill_documents

class Telling:
    def __init__(self, inner):
        self.inner = inner
        self.model_id, self.dimension = inner.model_id, inner.dimension
    def warm_up(self):
        self.inner.warm_up()
    def close(self):
        self.inner.close()
    def embed(self, texts):
        vectors = self.inner.embed(texts)
        print("embedded", len(texts), flush=True)
        return vectors
    embed_in_background = embed

indexer = Indexer(lambda: Telling(onnx_backend(threads=1)), cache_dir=Path(sys.argv[1]))
indexer.tiers.min_chunks = 20
indexer.index_in_background(skill_documents(40))
indexer.tiers.wait_until_done(600)
print("finished", flush=True)
"""


def test_a_kill_keeps_what_was_embedded_and_the_next_start_goes_on(
    minilm: EmbeddingBackend, tmp_path: Path
) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_KILLED_SCRIPT), str(tmp_path)],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    for slices, line in enumerate(child.stdout, start=1):  # killed once a few slices are saved
        assert line.startswith("embedded"), line
        if slices == 4:  # the model's warm-up, then three slices
            child.kill()
            break
    child.wait(WAIT)
    child.stdout.close()
    with sqlite3.connect(tmp_path / "embeddings.sqlite3") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    cache = EmbeddingCache(tmp_path)
    kept = cache.count()
    cache.close()
    documents = skill_documents(40)
    indexer, recording = _large(minilm, tmp_path)
    total = len({t for d in documents for t in _strategies.chunks("hybrid", d)})
    assert 0 < kept < total
    indexer.index_in_background(documents)
    assert indexer.tiers.wait_until_done(WAIT)
    assert len(set(recording.embedded) - {"warm up"}) == total - kept  # nothing embedded twice
    later = indexer.select(MESSAGE, documents, bodies_later=True)
    assert later.description_only == frozenset()
    indexer.close()


def test_background_embedding_gives_the_vectors_embedding_gives(minilm: EmbeddingBackend) -> None:
    texts = [TELESCOPE.text, *(d.description for d in skill_documents(7)), "short"]
    assert np.allclose(minilm.embed_in_background(texts), minilm.embed(texts), atol=1e-6)
