"""Test doubles. The fake backend is for pure ranking logic only; embeddings use the real model."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

import numpy as np

from indexer.backends import EmbeddingBackend, FloatMatrix


class CraftedBackend(EmbeddingBackend):
    """Returns hand-picked unit vectors for known texts (and a fixed orthogonal one otherwise)."""

    def __init__(self, vectors: Mapping[str, Sequence[float]], dimension: int = 4) -> None:
        self._vectors = {t: np.asarray(v, dtype=np.float32) for t, v in vectors.items()}
        self._dimension = dimension
        self.embedded: list[str] = []

    @property
    def model_id(self) -> str:
        return "crafted"

    @property
    def dimension(self) -> int:
        return self._dimension

    def warm_up(self) -> None:
        pass

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        self.embedded.extend(texts)
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        out[:, -1] = 1.0
        for row, text in enumerate(texts):
            if text in self._vectors:
                vector = self._vectors[text]
                out[row] = vector / np.linalg.norm(vector)
        return out


class RecordingBackend(EmbeddingBackend):
    """Wraps a real backend: records what it embeds, can pretend to be another model, and can be
    made to stop inside ``embed`` until released (to race an edit against indexing)."""

    def __init__(self, inner: EmbeddingBackend, model_id: str | None = None) -> None:
        self._inner = inner
        self._model_id = model_id or inner.model_id
        self.embedded: list[str] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        self.release.set()
        #: cleared: background embedding (a large agent's bodies) waits until it is set again.
        self.bodies = threading.Event()
        self.bodies.set()
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    def hold_next_embed(self) -> None:
        """Make the next embed call signal ``entered`` and wait for ``release``."""
        self.entered.clear()
        self.release.clear()

    def embed_in_background(self, texts: Sequence[str]) -> FloatMatrix:
        if not self.bodies.wait(timeout=30):
            raise TimeoutError("the test never let the bodies be embedded")
        return self.embed(texts)

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        self.entered.set()
        if not self.release.wait(timeout=30):
            raise TimeoutError("the test never released the backend")
        with self._lock:
            self.embedded.extend(texts)
        return self._inner.embed(texts)
