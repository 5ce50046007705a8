"""The selection strategies: what text each embeds, and how each turns a query into decisions."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from threading import Lock

import numpy as np
import numpy.typing as npt

from indexer._body_noise import (
    SHORT_CHUNK_WORDS,
    body_chunk_mask,
    body_discount,
    head_agreement_share,
    with_head_agreement,
)
from indexer._lexical import Bm25
from indexer._one_thing import asks_what_one_thing_is
from indexer._rare_names import HeadIndex, head_bonus
from indexer._templates import TemplateFamilies
from indexer._texts import (
    action_head,
    anchor_chunks,
    clauses,
    hybrid_chunks,
    is_knowledge_question,
    mask_opaque_tokens,
    request_part,
)
from indexer._twins import head_chunks, twins_of_better
from indexer.backends import FloatMatrix
from indexer.documents import Document
from indexer.matrices import MatrixFiles
from indexer.ranking import (
    Ranking,
    SelectionSettings,
    Strategy,
    best_chunk_per_item,
    merge_rankings,
    only_the_best,
    rank_anchor,
    rank_hybrid,
    without_twins,
)

__all__ = ["SnapshotExtras", "build_extras", "chunks", "rank", "text_scheme"]

Embed = Callable[[Sequence[str]], FloatMatrix]

#: Document sets at least this large keep their lexical index in a file between starts.
LEXICAL_FILE_MIN_DOCUMENTS = 2_000
#: Messages of at most this many words may be follow-ups that need the previous message.
FOLLOW_UP_MAX_WORDS = 8


def _is_short(message: str) -> bool:
    return len(message.split()) <= FOLLOW_UP_MAX_WORDS


def text_scheme(strategy: Strategy) -> str:
    """Strategies with the same scheme embed the same chunks and can share a snapshot."""
    return "anchor" if strategy == "anchor" else "hybrid-1"


def chunks(strategy: Strategy, document: Document) -> list[str]:
    """The chunks ``strategy`` embeds for ``document``."""
    return anchor_chunks(document) if strategy == "anchor" else hybrid_chunks(document)


@dataclass
class SnapshotExtras:
    """Per-snapshot data a strategy builds lazily (e.g. the BM25 index)."""

    documents: tuple[Document, ...]
    files: MatrixFiles | None = None  # where a large set's lexical index is kept between starts
    chunk_texts: Sequence[str] = ()
    chunk_item: npt.NDArray[np.intp] | None = None
    is_tool: npt.NDArray[np.bool_] = field(init=False)
    #: tools and skills: items that do something, chosen by what the message asks to be done
    is_action: npt.NDArray[np.bool_] = field(init=False)
    _bm25: Bm25 | None = None
    _heads: HeadIndex | None = None
    _families: TemplateFamilies | None = None
    _head_chunks: npt.NDArray[np.intp] | None = None
    _body: npt.NDArray[np.bool_] | None = None
    _judged_by_head: tuple[npt.NDArray[np.bool_], npt.NDArray[np.intp]] | None = None
    _lock: Lock = field(default_factory=Lock)

    def __post_init__(self) -> None:
        self.is_tool = np.array([d.kind == "tool" for d in self.documents], dtype=np.bool_)
        self.is_action = np.array([d.kind in ("tool", "skill") for d in self.documents], dtype=np.bool_)

    def bm25(self) -> Bm25:
        with self._lock:
            if self._bm25 is None:
                self._bm25 = self._lexical_index()
            return self._bm25

    def heads(self) -> HeadIndex:
        with self._lock:
            if self._heads is None:
                self._heads = HeadIndex(self.documents)
            return self._heads

    def families(self, min_size: int) -> TemplateFamilies:
        with self._lock:
            if self._families is None or self._families.min_size != min_size:
                self._families = TemplateFamilies(self.documents, min_size)
            return self._families

    def head_chunks(self) -> npt.NDArray[np.intp]:
        """Per item, its first chunk (its name and description), -1 for none."""
        with self._lock:
            if self._head_chunks is None:
                chunk_item = self.chunk_item if self.chunk_item is not None else np.zeros(0, dtype=np.intp)
                self._head_chunks = head_chunks(chunk_item, len(self.documents))
            return self._head_chunks

    def body_mask(self) -> npt.NDArray[np.bool_]:
        """Per chunk, whether it is part of an item's body (the hybrid's chunks)."""
        with self._lock:
            if self._body is None:
                if self.chunk_item is None:
                    self._body = np.zeros(len(self.chunk_texts), dtype=np.bool_)
                else:
                    self._body = body_chunk_mask(
                        self.documents, self.chunk_texts, self.chunk_item, functools.partial(chunks, "hybrid")
                    )
            return self._body

    def judged_by_head(self) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.intp]]:
        """Per chunk, whether it is a short body chunk (a heading, a label) of an item with a
        description (its head then says what the item is about), and its item's head chunk."""
        body = self.body_mask()
        heads = self.head_chunks()
        with self._lock:
            if self._judged_by_head is None:
                chunk_item = self.chunk_item if self.chunk_item is not None else np.zeros(0, dtype=np.intp)
                described = np.array([bool(d.description.strip()) for d in self.documents], dtype=np.bool_)
                head_of_chunk = heads[chunk_item]
                short = np.fromiter(
                    (len(text.split()) < SHORT_CHUNK_WORDS for text in self.chunk_texts),
                    dtype=np.bool_,
                    count=len(self.chunk_texts),
                )
                self._judged_by_head = (
                    body & short & described[chunk_item] & (head_of_chunk >= 0),
                    head_of_chunk,
                )
            return self._judged_by_head

    def head_agreement(self, settings: SelectionSettings) -> float:
        """The share of a body chunk's lead over its head taken off in this set (0 for a small one)."""
        body_chunks = self._body_chunks_if_past(settings.head_agreement_slope, settings)
        return head_agreement_share(body_chunks, settings.head_agreement_slope, settings.body_noise_reference)

    def body_discount(self, settings: SelectionSettings) -> float:
        """What each body chunk's cosine is marked down by in this set (0 for a small one)."""
        body_chunks = self._body_chunks_if_past(settings.body_noise_slope, settings)
        return body_discount(body_chunks, settings.body_noise_slope, settings.body_noise_reference)

    def _body_chunks_if_past(self, slope: float, settings: SelectionSettings) -> int:
        """How many body chunks this set has, for a mark-down of ``slope``; 0 when it is off or not
        even every chunk together is past the reference (then there is no need to count)."""
        if slope <= 0 or len(self.chunk_texts) <= settings.body_noise_reference:
            return 0
        return int(self.body_mask().sum())

    def _lexical_index(self) -> Bm25:
        texts = [_lexical_text(d) for d in self.documents]
        if self.files is None or len(texts) < LEXICAL_FILE_MIN_DOCUMENTS:
            return Bm25(texts)
        digest = hashlib.sha256(b"bm25-1")
        for text in texts:
            digest.update(text.encode("utf-8", "surrogatepass"))
            digest.update(b"\0")
        key = f"bm25-{digest.hexdigest()[:40]}"
        stored = self.files.load_arrays(key)
        if stored is not None:
            try:
                index = Bm25.from_arrays(stored)
            except (ValueError, KeyError, UnicodeDecodeError):
                index = None
            if index is not None and index.size == len(texts):
                return index
        index = Bm25(texts)
        self.files.save_arrays(key, index.arrays())
        return index


def _lexical_text(document: Document) -> str:
    server = f" {document.server}" if document.server else ""
    return f"{document.name}{server} {document.description} {document.text}"


def build_extras(
    documents: tuple[Document, ...],
    files: MatrixFiles | None = None,
    chunk_texts: Sequence[str] = (),
    chunk_item: npt.NDArray[np.intp] | None = None,
) -> SnapshotExtras:
    """Per-snapshot extras; expensive parts are built on first use (a large set's lexical index
    is read from ``files`` when a start before this one kept it)."""
    return SnapshotExtras(documents, files, chunk_texts, chunk_item)


def rank(
    settings: SelectionSettings,
    *,
    query: str,
    previous: str | None,
    embed: Embed,
    matrix: FloatMatrix,
    chunk_item: np.ndarray,
    n_items: int,
    extras: SnapshotExtras,
) -> Ranking:
    """Score every document for ``query`` and decide, using ``settings.strategy``."""
    if settings.strategy == "anchor":
        return rank_anchor(matrix @ embed([query])[0], chunk_item, n_items, settings)
    lexical_query = query
    if settings.opaque_tokens == "mask":
        query = mask_opaque_tokens(query)
        previous = mask_opaque_tokens(previous) if previous else previous
    if previous and previous.strip() and settings.previous_weight and _is_short(query):
        # A short follow-up ("and for staging?") borrows its topic from the previous message:
        # a blend, not a concatenation, and only for short messages, so that an unrelated
        # previous message (the usual case) cannot take over.
        current, before = embed([query, previous])
        blended = current + settings.previous_weight * before
        query_vector = blended / max(float(np.linalg.norm(blended)), 1e-12)
    else:
        query_vector = embed([query])[0]
    if (settings.question_tool_penalty or settings.question_floor) and is_knowledge_question(lexical_query):
        settings = replace(
            settings,
            tool_offset=settings.tool_offset - settings.question_tool_penalty,
            min_score=settings.min_score + settings.question_floor,
        )
    unnamed = None
    if settings.template_family_min:
        # A follow-up ("and on strava?") may name the app the message before it was about.
        named_by = [lexical_query, previous] if previous and _is_short(query) else [lexical_query]
        unnamed = extras.families(settings.template_family_min).unnamed(named_by)
    ranking = _hybrid_view(
        settings, query, lexical_query, query_vector, embed, matrix, chunk_item, n_items, extras, unnamed
    )
    if settings.clause_split and (parts := clauses(request_part(query))):
        views = [ranking]
        stricter = replace(settings, min_score=settings.min_score + settings.clause_margin)
        for part, vector in zip(parts, embed(parts), strict=True):
            views.append(
                _hybrid_view(
                    stricter, part, part, vector, embed, matrix, chunk_item, n_items, extras, unnamed
                )
            )
        ranking = merge_rankings(views, settings.top_n)
    if settings.twin_similarity < 1.0:
        heads = extras.head_chunks()
        # A skill is judged on its head alone; a rule or reference only when its head matched best.
        by_head = ~extras.is_tool & (extras.is_action | (ranking.chunk == heads))
        for _ in range(settings.top_n + 1):  # a freed place may go to another twin: fold again
            twins = twins_of_better(
                ranking.included_order(), matrix, heads, by_head, settings.twin_similarity
            )
            if not len(twins):
                break
            ranking = without_twins(ranking, twins, settings.top_n)
    if settings.definition_top_n < settings.top_n and asks_what_one_thing_is(lexical_query):
        ranking = only_the_best(ranking, settings.definition_top_n)
    return ranking


def _hybrid_view(
    settings: SelectionSettings,
    query: str,
    lexical_query: str,
    query_vector: FloatMatrix,
    embed: Embed,
    matrix: FloatMatrix,
    chunk_item: np.ndarray,
    n_items: int,
    extras: SnapshotExtras,
    unnamed: npt.NDArray[np.bool_] | None = None,
) -> Ranking:
    """One view of the message (the whole, or one clause) ranked by the hybrid rules."""
    chunk_scores = matrix @ query_vector
    if discount := extras.body_discount(settings):
        # In a library of thousands of body chunks, some chunk of some item matches almost any
        # message by chance; the more chunks, the higher that chance best (indexer/_body_noise.py).
        chunk_scores = (chunk_scores - discount * extras.body_mask()).astype(np.float32)
    if share := extras.head_agreement(settings):
        # ... and a heading or label far from what its item is about ("Output:" in an evaluation
        # skill) loses part of its lead over the item's name and description.
        judged, head_of_chunk = extras.judged_by_head()
        chunk_scores = with_head_agreement(chunk_scores, judged, head_of_chunk, share)
    best, best_chunk = best_chunk_per_item(chunk_scores, chunk_item, n_items)
    head = action_head(query) if settings.action_view and extras.is_action.any() else None
    if head is not None:
        # "summarize this text: <a paragraph>" asks for a summary whatever the paragraph is about.
        head_best, head_chunk = best_chunk_per_item(matrix @ embed([head])[0], chunk_item, n_items)
        better = extras.is_action & (head_best > best)
        best = np.where(better, head_best, best).astype(np.float32)
        best_chunk = np.where(better, head_chunk, best_chunk)
    lexical = (
        extras.bm25().scores(lexical_query) if settings.lexical_weight else np.zeros(n_items, np.float32)
    )
    if settings.head_lexical_share:
        # The head's part of the lexical weight is added by head_bonus, over names and descriptions.
        lexical = (1.0 - settings.head_lexical_share) * lexical
    bonus, lifted = head_bonus(extras.heads, lexical_query, settings)
    return rank_hybrid(best, best_chunk, lexical, extras.is_tool, settings, bonus, lifted, unnamed)
