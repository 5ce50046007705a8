"""Large document sets start quickly the second time: their matrix and lexical index are kept in
files beside the embedding cache, named by what they hold, and a damaged or foreign file is
ignored. A crafted backend stands in for the model (the vectors' values do not matter here)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from indexer import Document, Indexer
from indexer._lexical import Bm25
from indexer._strategies import LEXICAL_FILE_MIN_DOCUMENTS
from indexer.matrices import MIN_CHUNKS, MatrixFiles
from tests.support.indexer_fakes import CraftedBackend

COUNT = max(MIN_CHUNKS, LEXICAL_FILE_MIN_DOCUMENTS) + 10


def documents() -> list[Document]:
    return [
        Document(f"rule:r{i}", "rule", f"r{i}", f"how we handle case {i}", f"Rule text number {i}.")
        for i in range(COUNT)
    ]


def test_a_second_indexer_reads_the_matrix_and_lexical_index_from_files(tmp_path: Path) -> None:
    first_backend = CraftedBackend({})
    first = Indexer(lambda: first_backend, cache_dir=tmp_path)
    selected = [c.key for c in first.select("case 17", documents()).candidates[:5]]
    first.close()
    folder = tmp_path / "matrices"
    assert len(list(folder.glob("*.npy"))) == 1 and len(list(folder.glob("bm25-*.npz"))) == 1

    second_backend = CraftedBackend({})
    second = Indexer(lambda: second_backend, cache_dir=tmp_path)
    again = second.select("case 17", documents())
    assert again.timings.embedded == 0 and again.timings.from_disk == again.timings.chunks
    assert [c.key for c in again.candidates[:5]] == selected
    assert set(second_backend.embedded) <= {"case 17"}  # only the message: no chunk is embedded again
    second.close()


def test_a_changed_set_gets_its_own_file_and_a_damaged_file_is_ignored(tmp_path: Path) -> None:
    files = MatrixFiles(tmp_path)
    hashes = [i.to_bytes(4, "big") for i in range(MIN_CHUNKS)]
    matrix = np.ones((MIN_CHUNKS, 4), dtype=np.float32)
    files.save("model", hashes, matrix)
    loaded = files.load("model", hashes, 4)
    assert loaded is not None and loaded.shape == (MIN_CHUNKS, 4)
    assert files.load("model", [*hashes[:-1], b"new"], 4) is None  # another set: another name
    assert files.load("other-model", hashes, 4) is None
    assert files.load("model", hashes, 8) is None  # wrong shape: ignored
    [path] = (tmp_path / "matrices").glob("*.npy")
    path.write_bytes(b"not a matrix")
    assert files.load("model", hashes, 4) is None
    assert MatrixFiles(None).load("model", hashes, 4) is None
    files.save("model", hashes[:10], matrix[:10])  # small sets get no file
    assert len(list((tmp_path / "matrices").glob("*.npy"))) == 1


def test_the_lexical_index_round_trips_through_flat_arrays() -> None:
    texts = ["refund the annual plan", "deploy to staging", "", "snake_case and camelCase names"]
    index = Bm25(texts)
    copy = Bm25.from_arrays(index.arrays())
    for query in ("refund", "staging deploy", "camel case", "nothing here"):
        assert np.allclose(index.scores(query), copy.scores(query))
    assert copy.size == len(texts)
