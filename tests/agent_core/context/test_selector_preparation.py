"""What a front end asks the selector before any message: is the model loaded, and embed ahead.

A small stand-in backend keeps these fast: they test the selector's own promises (waiting off the
event loop, failures as answers, only new text embedded again), not the quality of the vectors,
which the selection tests check with the real model.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import Sequence

import numpy as np
import pytest

from agent_core.agent.schema import SelectionConfig
from agent_core.context.selection import Candidate, ContextSelector, tool_candidate
from agent_core.errors import SelectionUnavailableError
from indexer import Indexer, ModelLoadError
from indexer.backends import EmbeddingBackend, FloatMatrix


class HashingBackend(EmbeddingBackend):
    """Deterministic unit vectors from each text's hash; remembers every text it embedded."""

    def __init__(self) -> None:
        self.embedded: list[str] = []

    @property
    def model_id(self) -> str:
        return "hashing-test"

    @property
    def dimension(self) -> int:
        return 8

    def warm_up(self) -> None:
        pass

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        self.embedded += texts
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], dtype=np.uint8) for t in texts]
        vectors = np.asarray(rows, dtype=np.float32).reshape(len(texts), 8) + 1.0
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def tools(*names: str) -> list[Candidate]:
    return [tool_candidate("fs", name, f"{name.replace('_', ' ')} in the workspace", {}) for name in names]


def test_the_model_is_not_ready_while_loading_and_ready_once_loaded() -> None:
    release = threading.Event()
    backend = HashingBackend()

    def slow_backend() -> EmbeddingBackend:
        release.wait(timeout=30)
        return backend

    selector = ContextSelector(Indexer(backend_factory=slow_backend))
    try:
        assert selector.model_ready() is False  # nothing started the load
        selector.start_loading()
        assert selector.model_ready() is False  # looking does not wait for it
        release.set()
        assert asyncio.run(selector.wait_for_model()) is True
        assert selector.model_ready() is True
    finally:
        release.set()
        selector.indexer.close()


def test_a_model_that_fails_to_load_is_an_answer_when_waiting_and_an_error_when_looking() -> None:
    def broken_backend() -> EmbeddingBackend:
        raise ModelLoadError("the model file is damaged: reinstall ContextDesk")

    selector = ContextSelector(Indexer(backend_factory=broken_backend))
    try:
        assert asyncio.run(selector.wait_for_model()) is False
        # Looking again (the desktop polls) keeps reporting the failure instead of retrying.
        for _ in range(2):
            with pytest.raises(SelectionUnavailableError, match="reinstall ContextDesk"):
                selector.model_ready()
    finally:
        selector.indexer.close()


def test_indexing_ahead_embeds_the_candidates_once_and_then_only_what_is_new() -> None:
    backend = HashingBackend()
    selector = ContextSelector(Indexer(backend_factory=lambda: backend))
    config = SelectionConfig()
    try:
        first = asyncio.run(selector.index_ahead(tools("read_file", "list_directory"), config))
        assert first.embedded > 0 and len(backend.embedded) == first.embedded
        assert any("read file" in text for text in backend.embedded)

        again = asyncio.run(selector.index_ahead(tools("read_file", "list_directory"), config))
        assert again.embedded == 0

        grown = asyncio.run(selector.index_ahead(tools("read_file", "list_directory", "write_file"), config))
        assert grown.embedded > 0
        assert all("write file" in text for text in backend.embedded[first.embedded :])
    finally:
        selector.indexer.close()
