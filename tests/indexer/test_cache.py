from __future__ import annotations

import multiprocessing
import threading
from pathlib import Path

import numpy as np

from indexer.cache import EmbeddingCache, text_hash


def _vector(seed: int, dimension: int = 8) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(dimension).astype(np.float32)
    return v / np.linalg.norm(v)


def test_vectors_come_back_exactly_for_the_same_model_and_text(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    key = text_hash("hello")
    cache.put_many("model-a", {key: _vector(1)})
    found = cache.get_many("model-a", [key], dimension=8)
    np.testing.assert_array_equal(found[key], _vector(1))


def test_another_model_id_or_text_misses(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    cache.put_many("model-a", {text_hash("hello"): _vector(1)})
    assert cache.get_many("model-b", [text_hash("hello")], dimension=8) == {}
    assert cache.get_many("model-a", [text_hash("hello!")], dimension=8) == {}


def test_a_vector_of_the_wrong_dimension_is_ignored(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    cache.put_many("model-a", {text_hash("hello"): _vector(1)})
    assert cache.get_many("model-a", [text_hash("hello")], dimension=16) == {}


def test_entries_persist_across_instances(tmp_path: Path) -> None:
    first = EmbeddingCache(tmp_path)
    first.put_many("m", {text_hash(str(i)): _vector(i) for i in range(1200)})
    first.close()
    second = EmbeddingCache(tmp_path)
    found = second.get_many("m", [text_hash(str(i)) for i in range(1200)], dimension=8)
    assert len(found) == 1200
    assert second.count("m") == 1200


def test_no_directory_means_nothing_is_stored() -> None:
    cache = EmbeddingCache(None)
    cache.put_many("m", {text_hash("x"): _vector(1)})
    assert not cache.enabled
    assert cache.get_many("m", [text_hash("x")], dimension=8) == {}


def test_an_unusable_file_degrades_to_no_cache(tmp_path: Path) -> None:
    (tmp_path / "embeddings.sqlite3").write_bytes(b"this is not a database" * 100)
    cache = EmbeddingCache(tmp_path)
    assert not cache.enabled
    cache.put_many("m", {text_hash("x"): _vector(1)})


def test_threads_can_write_and_read_at_once(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    barrier = threading.Barrier(4)

    def work(offset: int) -> None:
        barrier.wait(timeout=10)
        for i in range(offset, offset + 200):
            cache.put_many("m", {text_hash(str(i)): _vector(i)})
            assert text_hash(str(i)) in cache.get_many("m", [text_hash(str(i))], dimension=8)

    threads = [threading.Thread(target=work, args=(k * 100,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert cache.count("m") == 500


def _write_from_another_process(directory: str, offset: int) -> None:
    cache = EmbeddingCache(Path(directory))
    assert cache.enabled
    for start in range(offset, offset + 300, 10):
        cache.put_many("m", {text_hash(str(i)): _vector(i) for i in range(start, start + 10)})
    cache.close()


def test_two_processes_can_share_one_cache(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=_write_from_another_process, args=(str(tmp_path), k * 150)) for k in range(2)
    ]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=60)
    assert [w.exitcode for w in workers] == [0, 0]
    cache = EmbeddingCache(tmp_path)
    assert cache.count("m") == 450
    found = cache.get_many("m", [text_hash("299")], dimension=8)
    np.testing.assert_array_equal(found[text_hash("299")], _vector(299))
