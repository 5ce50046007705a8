"""The memories one agent can see, with their embeddings and words, held in memory.

Loaded from the store once and kept in step with this program's writes (each change costs a few
row copies, not a rebuild); reloaded when another program wrote to the database. Similarity over
10k memories is one matrix-vector product; the lexical half is a BM25 kept up to date word by word.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from agent_core.memory.facets import FacetSpace
from agent_core.memory.people import Relations, mentioned_relations, relations_of
from agent_core.memory.records import Memory
from agent_core.memory.store import MemoryFilter, MemoryStore, StoredVector
from indexer import lexical_tokens

__all__ = ["INDEXED_STATUSES", "MemoryIndex", "Neighbour"]

Vector = npt.NDArray[np.float32]

#: What dedup and recall look at; superseded, expired, rejected and forgotten memories never match.
INDEXED_STATUSES = ("active", "proposed")
_K1, _B = 1.2, 0.75  # BM25, as the indexer's


@dataclass(frozen=True)
class Neighbour:
    memory: Memory
    similarity: float


class _Words:
    """BM25 over a changing set of texts, keyed by row; scores are the fraction of the query's best
    possible score (as the indexer's BM25, so the two mean the same)."""

    def __init__(self) -> None:
        self.postings: dict[str, dict[int, int]] = {}
        self.lengths = np.zeros(16, dtype=np.float32)
        self.count = 0  # rows with text
        self.total = 0.0
        self._arrays: dict[str, tuple[npt.NDArray[np.intp], Vector]] = {}  # per term, built on use

    def add(self, row: int, text: str) -> None:
        counts = Counter(lexical_tokens(text))
        for term, tf in counts.items():
            self.postings.setdefault(term, {})[row] = tf
            self._arrays.pop(term, None)
        if row >= len(self.lengths):
            self.lengths = np.concatenate([self.lengths, np.zeros(max(16, len(self.lengths)), np.float32)])
        self.lengths[row] = sum(counts.values())
        self.total += float(self.lengths[row])
        self.count += 1

    def remove(self, row: int, text: str) -> None:
        for term in set(lexical_tokens(text)):
            docs = self.postings.get(term)
            if docs is not None:
                docs.pop(row, None)
                self._arrays.pop(term, None)
                if not docs:
                    del self.postings[term]
        self.total -= float(self.lengths[row])
        self.lengths[row] = 0
        self.count -= 1

    def scores(self, query: str, size: int) -> Vector:
        out = np.zeros(size, dtype=np.float32)
        terms = set(lexical_tokens(query))
        if not terms or self.count == 0:
            return out
        average = self.total / self.count if self.total else 1.0
        best = 0.0
        for term in terms:
            docs = self.postings.get(term)
            df = len(docs) if docs else 0
            idf = math.log(1 + (self.count - df + 0.5) / (df + 0.5))
            best += idf * (_K1 + 1)
            if not docs:
                continue
            arrays = self._arrays.get(term)
            if arrays is None:
                arrays = (np.fromiter(docs.keys(), np.intp, df), np.fromiter(docs.values(), np.float32, df))
                self._arrays[term] = arrays
            rows, tf = arrays
            norm = _K1 * (1 - _B + _B * self.lengths[rows] / average)
            out[rows] += idf * tf * (_K1 + 1) / (tf + norm)
        return out / best if best > 0 else out


@dataclass(frozen=True)
class IndexMatch:
    """The indexed memories scored against one message, row i for memory i."""

    memories: list[Memory]
    cosines: Vector
    lexical: Vector  # BM25, 0..1
    fields: MemoryFields
    vectors: dict[int, Vector]  # copies, for the rows asked for (candidates of a recall)
    by_facet: Vector | None = None  # relevance through a facet the message needs (0: none)
    facet_of: npt.NDArray[np.int64] | None = None  # which facet, per row (-1: none)
    # Rows naming someone the message calls by relation: row -> "your son Theo".
    people: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class MemoryFields:
    """Per-row arrays of what recall filters and ranks on."""

    active: npt.NDArray[np.bool_]
    pinned: npt.NDArray[np.bool_]
    chat_only: npt.NDArray[np.bool_]  # scope chat or tier working: only in their own chat
    session: npt.NDArray[np.object_]
    expires: npt.NDArray[np.float64]  # inf: never
    importance: Vector
    last_seen: npt.NDArray[np.float64]  # last used, else created

    @classmethod
    def of(cls, memories: list[Memory]) -> MemoryFields:
        return cls(
            active=np.fromiter((m.status == "active" for m in memories), bool, len(memories)),
            pinned=np.fromiter((m.tier == "pinned" for m in memories), bool, len(memories)),
            chat_only=np.fromiter(
                (m.scope == "chat" or m.tier == "working" for m in memories), bool, len(memories)
            ),
            session=np.array([m.session_id for m in memories], dtype=object),
            expires=np.array(
                [np.inf if m.expires_at is None else m.expires_at for m in memories], np.float64
            ),
            importance=np.fromiter((m.importance for m in memories), np.float32, len(memories)),
            last_seen=np.array([m.last_used_at or m.created_at for m in memories], np.float64),
        )


class MemoryIndex:
    """Active and proposed memories of one agent (every scope it can see), with vectors."""

    def __init__(self, store: MemoryStore, agent: str, model_id: str) -> None:
        self._store = store
        self._agent = agent
        self._model_id = model_id
        self._lock = threading.RLock()
        self._memories: list[Memory] = []
        self._position: dict[str, int] = {}
        self._vectors: Vector = np.zeros((0, 0), dtype=np.float32)  # rows beyond len(_memories) are spare
        self._words = _Words()
        self._fields: MemoryFields | None = None  # built on use, dropped by any change
        self._aboutness: tuple[FacetSpace, Vector] | None = None  # likewise
        self._relations: Relations | None = None  # likewise
        self._loaded_version: int | None = None

    def _ensure_loaded(self) -> None:
        version, _ = self._store.generation
        if self._loaded_version == version:
            return
        rows = self._store.with_vectors(self._agent, None, INDEXED_STATUSES, every_chat=True)
        usable = [(m, v) for m, v in rows if v is not None and v.model == self._model_id]
        self._memories = []
        self._position = {}
        self._vectors = np.zeros((0, 0), dtype=np.float32)
        self._words = _Words()
        self._fields = None
        self._aboutness = None
        self._relations = None
        for memory, stored in usable:
            assert stored is not None
            self._append(memory, np.asarray(stored.vector, dtype=np.float32))
        self._loaded_version = version

    def missing_vectors(self) -> list[Memory]:
        """Indexed-status memories without a vector of the current model (another model made it)."""
        rows = self._store.with_vectors(self._agent, None, INDEXED_STATUSES, every_chat=True)
        return [m for m, v in rows if v is None or v.model != self._model_id]

    def put(self, memory: Memory, vector: StoredVector | None) -> None:
        """This program changed ``memory``: keep the index in step without reloading."""
        with self._lock:
            self._ensure_loaded()
            self._fields = None
            self._aboutness = None
            self._relations = None
            position = self._position.get(memory.id)
            if position is not None:
                self._words.remove(position, self._memories[position].text)
                if memory.status not in INDEXED_STATUSES:
                    self._drop(position)
                    return
                self._memories[position] = memory
                self._words.add(position, memory.text)
                if vector is not None:
                    self._vectors[position] = vector.vector
                return
            if memory.status in INDEXED_STATUSES and vector is not None:
                self._append(memory, np.asarray(vector.vector, dtype=np.float32))

    def _append(self, memory: Memory, vector: Vector) -> None:
        count = len(self._memories)
        if self._vectors.shape[1] != len(vector) or count == len(self._vectors):
            grown = np.zeros((max(16, 2 * count), len(vector)), dtype=np.float32)
            if self._vectors.shape[1] == len(vector):
                grown[:count] = self._vectors[:count]
            self._vectors = grown
        self._vectors[count] = vector
        self._position[memory.id] = count
        self._memories.append(memory)
        self._words.add(count, memory.text)

    def _drop(self, position: int) -> None:
        """Remove row ``position`` (its words already removed) by moving the last row into it."""
        last = len(self._memories) - 1
        removed = self._memories[position]
        if position != last:
            moved = self._memories[last]
            self._words.remove(last, moved.text)
            self._memories[position] = moved
            self._vectors[position] = self._vectors[last]
            self._position[moved.id] = position
            self._words.add(position, moved.text)
        self._memories.pop()
        del self._position[removed.id]

    def match(
        self,
        query: str,
        vector: Vector,
        *,
        keep_vectors_from: float = 1.0,
        facets: FacetSpace | None = None,
        people: bool = False,
    ) -> IndexMatch:
        """Every indexed memory scored against ``query`` / ``vector``; the vectors of rows whose
        cosine plus lexical bonus reaches ``keep_vectors_from`` (and of pinned rows) are copied
        along, for near-duplicate checks among them; with ``facets``, how much each row is
        about each facet; with ``people``, which rows name someone the query calls by relation."""
        with self._lock:
            self._ensure_loaded()
            count = len(self._memories)
            matrix = self._vectors[:count]
            cosines = matrix @ np.asarray(vector, dtype=np.float32) if count else np.zeros(0, np.float32)
            lexical = self._words.scores(query, count)
            if self._fields is None:
                self._fields = MemoryFields.of(self._memories)
            keep = (cosines + lexical >= keep_vectors_from) | self._fields.pinned
            by_facet = facet_of = None
            if facets is not None:
                by_facet, facet_of = facets.reach(facets.needs(vector), self._aboutness_of(facets, matrix))
                keep |= facet_of >= 0
            named = self._people_named(query) if people else {}
            if named:
                keep[list(named)] = True
            wanted = np.flatnonzero(keep)
            return IndexMatch(
                list(self._memories),
                cosines,
                lexical,
                self._fields,
                {int(row): matrix[row].copy() for row in wanted},
                by_facet,
                facet_of,
                named,
            )

    def _people_named(self, query: str) -> dict[int, str]:
        """Rows that name a person ``query`` calls by relation ("my son" -> rows naming Theo)."""
        kinds = mentioned_relations(query)
        if not kinds:
            return {}
        if self._relations is None:
            # Superseded memories are not indexed, but may be all that still says who someone is.
            earlier = self._store.find(
                MemoryFilter(self._agent, statuses=frozenset({"superseded"}), include_other_chats=True)
            )
            self._relations = relations_of(
                (m.text for m in self._memories if m.status == "active"), (m.text for m in earlier)
            )
        rows: dict[int, str] = {}
        for word, said in self._relations.named(kinds).items():
            for row in self._words.postings.get(word, {}):
                rows.setdefault(row, said)
        return rows

    def _aboutness_of(self, facets: FacetSpace, matrix: Vector) -> Vector:
        if self._aboutness is None or self._aboutness[0] is not facets:
            self._aboutness = (facets, facets.aboutness(matrix))
        return self._aboutness[1]
