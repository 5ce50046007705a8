"""The memories one agent can see, with their embeddings, held in memory for fast similarity.

Loaded from the store once and kept in step with this program's writes; reloaded when another
program wrote to the database. Similarity over 10k memories is one matrix-vector product.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from agent_core.memory.records import Memory
from agent_core.memory.store import MemoryStore, StoredVector
from indexer import Bm25

__all__ = ["INDEXED_STATUSES", "MemoryIndex", "Neighbour"]

Vector = npt.NDArray[np.float32]

#: What dedup and recall look at; superseded, expired, rejected and forgotten memories never match.
INDEXED_STATUSES = ("active", "proposed")


@dataclass(frozen=True)
class Neighbour:
    memory: Memory
    similarity: float


class MemoryIndex:
    """Active and proposed memories of one agent (every scope it can see), with vectors."""

    def __init__(self, store: MemoryStore, agent: str, model_id: str) -> None:
        self._store = store
        self._agent = agent
        self._model_id = model_id
        self._lock = threading.RLock()
        self._memories: list[Memory] = []
        self._position: dict[str, int] = {}
        self._matrix: Vector = np.zeros((0, 0), dtype=np.float32)
        self._loaded_version: int | None = None
        self._bm25: Bm25 | None = None  # over the texts of _memories, built when first needed

    def _ensure_loaded(self) -> None:
        version, _ = self._store.generation
        if self._loaded_version == version:
            return
        rows = self._store.with_vectors(self._agent, None, INDEXED_STATUSES, every_chat=True)
        self._memories = []
        self._position = {}
        vectors: list[Vector] = []
        for memory, stored in rows:
            if stored is None or stored.model != self._model_id:
                continue  # embedded by another model: re-embedded by MemoryBook.reindex
            self._position[memory.id] = len(self._memories)
            self._memories.append(memory)
            vectors.append(stored.vector)
        self._matrix = np.vstack(vectors).astype(np.float32) if vectors else np.zeros((0, 0), np.float32)
        self._loaded_version = version
        self._bm25 = None

    def missing_vectors(self) -> list[Memory]:
        """Indexed-status memories without a vector of the current model."""
        rows = self._store.with_vectors(self._agent, None, INDEXED_STATUSES, every_chat=True)
        return [m for m, v in rows if v is None or v.model != self._model_id]

    def put(self, memory: Memory, vector: StoredVector | None) -> None:
        """This program changed ``memory``: keep the index in step without reloading."""
        with self._lock:
            self._ensure_loaded()
            self._bm25 = None
            position = self._position.get(memory.id)
            if memory.status not in INDEXED_STATUSES:
                if position is not None:
                    self._drop(position)
                return
            if position is not None:
                self._memories[position] = memory
                if vector is not None:
                    self._matrix[position] = vector.vector
                return
            if vector is None:
                return
            self._position[memory.id] = len(self._memories)
            self._memories.append(memory)
            row = np.asarray(vector.vector, dtype=np.float32)[None, :]
            self._matrix = row if self._matrix.size == 0 else np.vstack([self._matrix, row])
        self._loaded_version, _ = self._store.generation

    def _drop(self, position: int) -> None:
        del self._memories[position]
        self._matrix = np.delete(self._matrix, position, axis=0)
        self._position = {m.id: i for i, m in enumerate(self._memories)}

    def snapshot(self) -> tuple[list[Memory], Vector]:
        """The indexed memories and their vectors (row i is memory i); do not modify."""
        with self._lock:
            self._ensure_loaded()
            return list(self._memories), self._matrix

    def snapshot_for(self, query: str) -> tuple[list[Memory], Vector, Vector]:
        """:meth:`snapshot` and the BM25 score (0..1) of ``query`` against each memory, taken together."""
        with self._lock:
            self._ensure_loaded()
            if self._bm25 is None:
                self._bm25 = Bm25([m.text for m in self._memories])
            return list(self._memories), self._matrix, self._bm25.scores(query)

    def __iter__(self) -> Iterator[Memory]:
        return iter(self.snapshot()[0])
