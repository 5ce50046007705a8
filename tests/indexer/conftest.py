"""Fixtures for the indexer tests: one real model per session (tests/conftest.py isolates user folders)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from indexer.backends import EmbeddingBackend, onnx_backend


@pytest.fixture(scope="session")
def minilm() -> Iterator[EmbeddingBackend]:
    """The real ONNX MiniLM, loaded once for the whole session."""
    backend = onnx_backend(threads=2)
    yield backend
    backend.close()
