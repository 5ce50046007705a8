"""What :meth:`indexer.Indexer.select` returns: every candidate scored, with the decision and why."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from indexer.chunking import chunk_text
from indexer.documents import Document, IndexedKind
from indexer.ranking import VIA_CLAUSE, VIA_LEARNED, VIA_WHOLE, Ranking, Reason, Strategy

__all__ = ["ScoredDocument", "Selection", "Timings", "Via"]


@dataclass(frozen=True)
class ScoredDocument:
    """One document considered for a message, whether it was included or not."""

    key: str
    kind: IndexedKind
    name: str
    server: str | None
    #: the score the decision was made on (anchor: cosine; hybrid: cosine plus lexical bonus).
    score: float
    #: best cosine similarity between the message and one of the document's chunks.
    cosine: float
    #: the chunk that matched best.
    best_chunk: str
    included: bool
    reason: Reason
    #: how it got in: "text" (its own text matched the message), "example" (one of its example
    #: requests did), "clause" (one request of a compound message did), "learned" (the user
    #: added it after a message much like this one).
    via: Via = "text"


Via = Literal["text", "example", "learned", "clause"]
_VIA_NAMES: dict[int, Via] = {
    VIA_WHOLE: "text",
    VIA_CLAUSE: "clause",
    VIA_LEARNED: "learned",
}


@dataclass(frozen=True)
class Timings:
    """Where the time of one :meth:`Indexer.select` went, in milliseconds, and what was indexed."""

    load_ms: float
    index_ms: float
    search_ms: float
    chunks: int
    embedded: int
    from_disk: int

    @property
    def total_ms(self) -> float:
        return self.load_ms + self.index_ms + self.search_ms


class Selection:
    """Every candidate considered, best first, with the decision and reason for each.

    Candidates are built on first access: with thousands of items, callers that only need
    :attr:`included` do not pay for the rest.
    """

    def __init__(
        self,
        query: str,
        strategy: Strategy,
        timings: Timings,
        documents: tuple[Document, ...],
        chunk_texts: Sequence[str],
        ranking: Ranking | None,
        description_only: frozenset[str] = frozenset(),
    ) -> None:
        self.query = query
        #: keys of the documents judged on their name, description and examples only: their
        #: bodies were still being indexed (see :mod:`indexer.tiers`).
        self.description_only = description_only
        self.strategy = strategy
        self.timings = timings
        self._documents = documents
        self._chunk_texts = chunk_texts
        self._ranking = ranking

    def _scored(self, item: int) -> ScoredDocument:
        assert self._ranking is not None
        row = self._ranking.row(item)
        doc = self._documents[item]
        best_chunk = self._chunk_texts[row.chunk]
        via: Via = "text"
        if self._ranking.via is not None:
            via = _VIA_NAMES[int(self._ranking.via[item])]
        if via == "text" and doc.examples and any(best_chunk in chunk_text(t) for t in doc.examples):
            via = "example"
        return ScoredDocument(
            key=doc.key,
            kind=doc.kind,
            name=doc.name,
            server=doc.server,
            score=row.score,
            cosine=row.cosine,
            best_chunk=best_chunk,
            included=row.included,
            reason=row.reason,
            via=via,
        )

    @functools.cached_property
    def candidates(self) -> tuple[ScoredDocument, ...]:
        """Every document that had text to match, best first."""
        if self._ranking is None:
            return ()
        return tuple(self._scored(int(i)) for i in self._ranking.order)

    @functools.cached_property
    def included(self) -> tuple[ScoredDocument, ...]:
        """The candidates that go into the request, best first."""
        if self._ranking is None:
            return ()
        return tuple(self._scored(int(i)) for i in self._ranking.included_order())

    def best(self, count: int) -> tuple[ScoredDocument, ...]:
        """The ``count`` best candidates, included or not (e.g. to show near-misses)."""
        if self._ranking is None:
            return ()
        return tuple(self._scored(int(i)) for i in self._ranking.best(count))

    def __repr__(self) -> str:
        return f"Selection(query={self.query!r}, strategy={self.strategy!r}, included={self.included!r})"
