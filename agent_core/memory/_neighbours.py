"""The memories a new one could duplicate or contradict, each with the judge's verdict on the pair
(``conflicts.judge``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from agent_core.memory._drafts import MemoryDraft
from agent_core.memory.conflicts import Verdict, judge
from agent_core.memory.index import MemoryIndex, Neighbour
from agent_core.memory.records import Memory
from agent_core.memory.store import StoredVector

__all__ = ["Embedder", "judged_neighbours"]

NEIGHBOURS_BY_MEANING = 8  # memories a new one is compared with: the closest in meaning...
NEIGHBOURS_BY_WORDS = 5  # ...and those sharing its rarest words


class Embedder(Protocol):
    """What memories need of the indexer: unit vectors, and which model made them."""

    @property
    def model_id(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


def judged_neighbours(
    index: MemoryIndex, embedder: Embedder, vector: StoredVector, draft: MemoryDraft
) -> list[tuple[Neighbour, Verdict]]:
    """The draft's neighbours (closest first), each with how the draft relates to it."""

    def value_similarity(a: str, b: str) -> float:
        vectors = embedder.embed([a, b])
        return float(vectors[0] @ vectors[1])

    return [
        (neighbour, judge(
            draft.text,
            neighbour.memory.text,
            neighbour.similarity,
            same_kind=_same_kind(neighbour.memory.kind, draft.kind),
            value_similarity=value_similarity,
        ))
        for neighbour in _neighbours(index, vector, draft)
    ]  # fmt: skip


def _neighbours(index: MemoryIndex, vector: StoredVector, draft: MemoryDraft) -> list[Neighbour]:
    """Memories the draft could duplicate or contradict, in the same owner scope: the closest in
    meaning, and those sharing its rarest words (a change of value is often far in meaning: "our
    database is MySQL 8" / "we moved to PostgreSQL 16")."""
    match = index.match(draft.text, vector.vector, keep_vectors_from=np.inf)
    memories, similarities, lexical = match.memories, match.cosines, match.lexical
    if not memories:
        return []

    def same_owner(m: Memory) -> bool:
        if draft.scope == "chat":
            return m.scope == "chat" and m.session_id == draft.session_id
        return m.scope == draft.scope

    by_meaning = [int(i) for i in np.argsort(-similarities)[:NEIGHBOURS_BY_MEANING]]
    by_words = [int(i) for i in np.argsort(-lexical)[:NEIGHBOURS_BY_WORDS] if lexical[int(i)] > 0]
    rows = list(dict.fromkeys([*by_meaning, *by_words]))
    found = [Neighbour(memories[i], float(similarities[i])) for i in rows if same_owner(memories[i])]
    return sorted(found, key=lambda n: -n.similarity)


def _same_kind(a: str, b: str) -> bool:
    return a == b or "fact" in (a, b)
