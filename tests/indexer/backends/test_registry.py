from __future__ import annotations

import importlib.util
from collections.abc import Sequence

import numpy as np
import pytest

from indexer.backends import EmbeddingBackend, FloatMatrix, backend_names, create_backend, register_backend
from indexer.errors import BackendUnavailableError, UnknownBackendError


class _Constant(EmbeddingBackend):
    def __init__(self, size: int = 3) -> None:
        self.size = size

    @property
    def model_id(self) -> str:
        return f"constant-{self.size}"

    @property
    def dimension(self) -> int:
        return self.size

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        return np.ones((len(texts), self.size), dtype=np.float32) / np.sqrt(self.size)


def test_built_in_backends_are_registered_like_plugins() -> None:
    assert {"onnx", "sentence-transformers"} <= set(backend_names())


def test_a_registered_backend_is_created_with_options() -> None:
    register_backend("test-constant", _Constant, replace=True)
    backend = create_backend("test-constant", size=5)
    assert backend.dimension == 5
    assert backend.model_id == "constant-5"


def test_registering_a_taken_name_needs_replace() -> None:
    register_backend("test-taken", _Constant, replace=True)
    with pytest.raises(ValueError, match="replace=True"):
        register_backend("test-taken", _Constant)


def test_an_unknown_name_says_which_names_exist() -> None:
    with pytest.raises(UnknownBackendError, match="onnx"):
        create_backend("no-such-backend")


@pytest.mark.skipif(importlib.util.find_spec("sentence_transformers") is not None, reason="[st] is installed")
def test_sentence_transformers_without_the_extra_says_how_to_install_it() -> None:
    with pytest.raises(BackendUnavailableError, match=r"\[st\]"):
        create_backend("sentence-transformers")
