"""The ONNX backend with the real MiniLM."""

from __future__ import annotations

import numpy as np
import pytest

from indexer.backends import EmbeddingBackend

pytestmark = pytest.mark.slow


def test_vectors_are_unit_length_float32_of_the_model_dimension(minilm: EmbeddingBackend) -> None:
    vectors = minilm.embed(["hello world", "a much longer sentence about something else entirely"])
    assert vectors.dtype == np.float32
    assert vectors.shape == (2, 384) and minilm.dimension == 384
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_no_text_gives_an_empty_matrix(minilm: EmbeddingBackend) -> None:
    assert minilm.embed([]).shape == (0, 384)


def test_related_texts_score_higher_than_unrelated_ones(minilm: EmbeddingBackend) -> None:
    query, related, unrelated = minilm.embed(
        [
            "how do I write a good git commit message",
            "Commit messages: use the imperative mood",
            "Banana bread recipe",
        ]
    )
    assert query @ related > 0.5 > query @ unrelated


def test_batching_and_padding_do_not_change_a_vector(minilm: EmbeddingBackend) -> None:
    texts = ["short", "a medium length sentence here", "long " * 120, "another one, of middling size!"]
    together = minilm.embed(texts)
    alone = np.stack([minilm.embed([t])[0] for t in texts])
    np.testing.assert_allclose(together, alone, atol=2e-5)


def test_text_beyond_128_tokens_still_counts(minilm: EmbeddingBackend) -> None:
    # The tokenizer ships truncating at 128 tokens; we raised it to 256.
    head = "alpha " * 150
    a, b = minilm.embed([head + "kubernetes deployment rollout", head + "chocolate cake baking"])
    assert float(a @ b) < 0.9999


def test_text_beyond_256_tokens_is_truncated(minilm: EmbeddingBackend) -> None:
    head = "alpha " * 300
    a, b = minilm.embed([head + "kubernetes", head + "chocolate"])
    np.testing.assert_allclose(a, b, atol=1e-6)


def test_the_model_id_names_weights_pooling_and_truncation(minilm: EmbeddingBackend) -> None:
    assert minilm.model_id.startswith("onnx:all-MiniLM-L6-v2-int8:")
    assert minilm.model_id.endswith(":mean:max256")


def _varied_texts(count: int) -> list[str]:
    words = [
        "deploy",
        "rollback",
        "commit",
        "review",
        "incident",
        "expense",
        "login",
        "kubernetes",
        "cache",
        "token",
    ]
    return [" ".join(words[(i * 7 + j) % len(words)] for j in range(1 + (i * 13) % 90)) for i in range(count)]


def test_parallel_batches_give_the_same_vectors_in_the_same_order(minilm: EmbeddingBackend) -> None:
    from indexer.backends._onnx import OnnxBackend

    texts = _varied_texts(60)  # many batches, so both workers get some
    one_core = OnnxBackend(threads=1)
    try:
        sequential = one_core.embed(texts)
    finally:
        one_core.close()
    parallel = minilm.embed(texts)  # threads=2
    # Each run is single-threaded and batches do not depend on the worker count: bit-identical.
    np.testing.assert_array_equal(parallel, sequential)
    alone = np.stack([minilm.embed([t])[0] for t in texts[:5]])
    np.testing.assert_allclose(parallel[:5], alone, atol=2e-5)


def test_a_failing_batch_on_a_helper_thread_reaches_the_caller(
    minilm: EmbeddingBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    from indexer.backends import _onnx
    from indexer.errors import EmbeddingError

    assert isinstance(minilm, _onnx.OnnxBackend)
    real_run = _onnx.OnnxBackend._run
    calls: list[int] = []

    def flaky(self: _onnx.OnnxBackend, batch: list[np.ndarray]) -> np.ndarray:
        calls.append(len(batch))
        if len(calls) == 2:
            raise EmbeddingError("boom")
        return real_run(self, batch)

    monkeypatch.setattr(_onnx.OnnxBackend, "_run", flaky)
    with pytest.raises(EmbeddingError, match="boom"):
        minilm.embed(_varied_texts(60))


def test_threads_must_be_positive() -> None:
    from indexer.backends._onnx import OnnxBackend

    with pytest.raises(ValueError, match="at least 1"):
        OnnxBackend(threads=0)
