"""The public entry point: :class:`Indexer` picks the context items that fit a user message.

Model loading happens on a background thread (:meth:`Indexer.start_loading`). Indexing is
just in time: :meth:`Indexer.select` embeds only chunks found neither in memory nor in the
on-disk cache. Documents are immutable values and vectors are keyed by the hash of the text
they embed, so concurrent calls, and calls racing an edit, each see exactly the documents
they were given.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from indexer import _strategies
from indexer.backends import EmbeddingBackend, FloatMatrix, onnx_backend
from indexer.cache import EmbeddingCache, text_hash
from indexer.documents import Document
from indexer.errors import IndexerError, ModelLoadError
from indexer.matrices import MatrixFiles
from indexer.ranking import Ranking, SelectionSettings, Strategy, corrected
from indexer.results import ScoredDocument, Selection, Timings
from indexer.tiers import BodyTiers

__all__ = ["Indexer", "ScoredDocument", "Selection", "TieredTimings", "Timings"]

logger = logging.getLogger(__name__)

#: Chunks embedded (and saved) at a time when many are missing.
EMBED_SLICE = 512
#: How many document sets (e.g. agents, or versions of one being edited) stay indexed in memory.
_SNAPSHOTS_KEPT = 4


@dataclass
class _Snapshot:
    """A document set chunked and embedded: one row of ``matrix`` per chunk."""

    scheme: str
    documents: tuple[Document, ...]
    chunk_texts: list[str]
    chunk_hashes: list[bytes]
    chunk_item: np.ndarray
    matrix: FloatMatrix
    extras: _strategies.SnapshotExtras


class Indexer:
    """Embeds documents just in time and selects the ones relevant to a message. Thread-safe."""

    def __init__(
        self,
        backend_factory: Callable[[], EmbeddingBackend] | None = None,
        cache_dir: Path | None = None,
        threads: int | None = None,
    ) -> None:
        """Nothing is loaded yet. ``backend_factory`` defaults to the ONNX backend with ``threads``
        intra-op threads; ``cache_dir`` (None: memory only) holds the persistent embedding cache.
        """
        self._factory = backend_factory or (lambda: onnx_backend(threads=threads))
        self._cache_dir = cache_dir
        self._load_lock = threading.Lock()
        self._loaded = threading.Event()
        self._load_thread: threading.Thread | None = None
        self._load_error: IndexerError | None = None
        self._backend: EmbeddingBackend | None = None
        self._cache = EmbeddingCache(None)
        self._matrices = MatrixFiles(None)
        self._state_lock = threading.Lock()
        self._embed_lock = threading.Lock()
        self._snapshots: list[_Snapshot] = []
        self._chunk_memo: dict[tuple[str, Document], tuple[tuple[str, bytes], ...]] = {}
        #: Told (chunks embedded so far, chunks to embed) while a large batch is embedded, from the
        #: embedding thread: e.g. a status line on a cold start. None: nobody asks.
        self.progress: Callable[[int, int], None] | None = None
        self._vectors: dict[bytes, FloatMatrix] = {}
        #: bodies embedded after the first selection of a large agent (``select(bodies_later=True)``)
        self.tiers = BodyTiers(self._chunk_hashes, self._present, self._embed_whole, self._finish_whole)

    # -- loading -------------------------------------------------------------------------------

    def start_loading(self) -> None:
        """Load the model (and open the cache) on a background thread; returns at once.

        Calling it again while loading, or after success, does nothing; after a failure it retries.
        """
        with self._load_lock:
            if self._load_thread is not None and (self._load_error is None or self._load_thread.is_alive()):
                return
            self._load_error = None
            self._loaded.clear()
            self._load_thread = threading.Thread(target=self._load, name="indexer-load", daemon=True)
            self._load_thread.start()

    def _load(self) -> None:
        try:
            cache = EmbeddingCache(self._cache_dir)
            backend = self._factory()
            backend.warm_up()
            self._cache, self._backend = cache, backend
            self._matrices = MatrixFiles(self._cache_dir if cache.enabled else None)
        except IndexerError as exc:
            logger.warning("embedding model failed to load: %s", exc)
            self._load_error = exc
        except Exception as exc:  # top level of a thread: keep the error for the caller
            logger.exception("embedding model failed to load")
            self._load_error = ModelLoadError(
                f"The embedding model failed to load ({exc!r}); check the log, then restart ContextDesk."
            )
        finally:
            self._loaded.set()

    def is_ready(self) -> bool:
        """Whether the model is loaded (a :meth:`select` now will not wait for it)."""
        return self._loaded.is_set() and self._backend is not None

    @property
    def load_error(self) -> IndexerError | None:
        """Why the last load failed; None before any load, while loading and once loaded.
        Reading it does not start or retry a load."""
        return self._load_error

    def wait_until_ready(self, timeout: float | None = None) -> bool:
        """Start loading if needed and wait up to ``timeout`` seconds; True once ready.

        Raises:
            IndexerError: loading failed.
        """
        self.start_loading()
        if not self._loaded.wait(timeout):
            return False
        if self._load_error is not None:
            raise self._load_error
        return True

    def _require_backend(self) -> EmbeddingBackend:
        self.wait_until_ready()
        assert self._backend is not None  # wait_until_ready raised otherwise
        return self._backend

    @property
    def model_id(self) -> str:
        """The loaded backend's model id.

        Raises:
            IndexerError: the model failed to load.
        """
        return self._require_backend().model_id

    # -- indexing ------------------------------------------------------------------------------

    def index(self, documents: Sequence[Document], strategy: Strategy = "hybrid") -> Timings:
        """Embed whatever ``documents`` still lack (e.g. in the background after an agent loads).

        Raises:
            IndexerError: the model failed to load or to embed.
        """
        start = time.perf_counter()
        backend = self._require_backend()
        load_ms = (time.perf_counter() - start) * 1000
        _, stats = self._snapshot(backend, tuple(documents), strategy)
        self.tiers.mark_whole(documents, strategy)
        return Timings(load_ms, stats.ms, 0.0, stats.chunks, stats.embedded, stats.from_disk)

    def index_descriptions_first(
        self, documents: Sequence[Document], strategy: Strategy = "hybrid"
    ) -> TieredTimings:
        """:meth:`index`, in tiers as ``select(bodies_later=True)`` does: when the bodies of
        ``documents`` still lack at least :attr:`tiers.min_chunks <indexer.tiers.BodyTiers>`
        chunks, embed the description tiers now and hand the bodies to the background
        (:meth:`index_in_background`); otherwise embed everything now.

        Raises:
            IndexerError: the model failed to load or to embed.
            ValueError: two documents share a key.
        """
        start = time.perf_counter()
        backend = self._require_backend()
        load_ms = (time.perf_counter() - start) * 1000
        documents = tuple(documents)
        tiered = self.tiers.judged(documents, strategy)
        if not tiered.description_only:
            return TieredTimings(self.index(documents, strategy))
        _, stats = self._snapshot(backend, tiered.documents, strategy)
        self.index_in_background(documents, strategy)
        timings = Timings(load_ms, stats.ms, 0.0, stats.chunks, stats.embedded, stats.from_disk)
        return TieredTimings(timings, tiered.description_only, tiered.lacking_chunks)

    def index_in_background(self, documents: Sequence[Document], strategy: Strategy = "hybrid") -> None:
        """Embed what ``documents`` still lack on a background thread (bodies of items a selection
        judged on their description only); returns at once. See :mod:`indexer.tiers`."""
        self.tiers.continue_in_background(documents, strategy)

    def _chunk_hashes(self, strategy: Strategy, document: Document) -> list[bytes]:
        memo = self._chunk_memo.get((_strategies.text_scheme(strategy), document))
        if memo is not None:
            return [h for _, h in memo]
        return [text_hash(t) for t in _strategies.chunks(strategy, document)]

    def _present(self, hashes: Sequence[bytes]) -> set[bytes]:
        with self._state_lock:
            found = {h for h in hashes if h in self._vectors}
        rest = [h for h in hashes if h not in found]
        return found | self._cache.contains_many(self._require_backend().model_id, rest)

    def _embed_whole(self, documents: Sequence[Document], strategy: Strategy) -> None:
        texts = [t for d in documents for t in _strategies.chunks(strategy, d)]
        self._vectors_for(self._require_backend(), texts, [text_hash(t) for t in texts], background=True)

    def _finish_whole(self, documents: Sequence[Document], strategy: Strategy) -> None:
        snap, _ = self._snapshot(self._require_backend(), tuple(documents), strategy)
        if strategy == "hybrid":
            snap.extras.bm25()  # built now, not by the first selection after

    def _snapshot(
        self, backend: EmbeddingBackend, documents: tuple[Document, ...], strategy: Strategy
    ) -> tuple[_Snapshot, _IndexStats]:
        start = time.perf_counter()
        scheme = _strategies.text_scheme(strategy)
        with self._state_lock:
            for i, snap in enumerate(self._snapshots):
                if snap.scheme == scheme and snap.documents == documents:
                    self._snapshots.append(self._snapshots.pop(i))  # most recently used last
                    return snap, _IndexStats(
                        (time.perf_counter() - start) * 1000, len(snap.chunk_texts), 0, 0
                    )
            memo = dict(self._chunk_memo)

        texts: list[str] = []
        hashes: list[bytes] = []
        items: list[int] = []
        new_memo: dict[tuple[str, Document], tuple[tuple[str, bytes], ...]] = {}
        seen_keys: set[str] = set()
        for i, doc in enumerate(documents):
            if doc.key in seen_keys:
                raise ValueError(f"Two documents share the key {doc.key!r}; keys must be unique.")
            seen_keys.add(doc.key)
            chunks = memo.get((scheme, doc))
            if chunks is None:
                chunks = tuple((t, text_hash(t)) for t in _strategies.chunks(strategy, doc))
            new_memo[(scheme, doc)] = chunks
            for t, h in chunks:
                texts.append(t)
                hashes.append(h)
                items.append(i)

        matrix = self._matrices.load(backend.model_id, hashes, backend.dimension)
        embedded, from_disk = 0, len(hashes) if matrix is not None else 0
        if matrix is None:
            vectors, embedded, from_disk = self._vectors_for(backend, texts, hashes)
            matrix = np.empty((len(texts), backend.dimension), dtype=np.float32)
            for row, h in enumerate(hashes):
                matrix[row] = vectors[h]
            self._matrices.save(backend.model_id, hashes, matrix)
        chunk_item = np.asarray(items, dtype=np.intp)
        snap = _Snapshot(
            scheme=scheme,
            documents=documents,
            chunk_texts=texts,
            chunk_hashes=hashes,
            chunk_item=chunk_item,
            matrix=matrix,
            extras=_strategies.build_extras(documents, self._matrices, texts, chunk_item),
        )
        with self._state_lock:
            self._snapshots.append(snap)
            del self._snapshots[:-_SNAPSHOTS_KEPT]
            self._chunk_memo.update(new_memo)
            self._prune_locked()
        return snap, _IndexStats((time.perf_counter() - start) * 1000, len(texts), embedded, from_disk)

    def _vectors_for(
        self, backend: EmbeddingBackend, texts: list[str], hashes: list[bytes], *, background: bool = False
    ) -> tuple[dict[bytes, FloatMatrix], int, int]:
        """Vectors for every hash: from memory, disk, then the model. -> (vectors, embedded, from_disk)."""
        model_id = backend.model_id
        with self._state_lock:
            found = {h: self._vectors[h] for h in hashes if h in self._vectors}
        missing = {h: t for h, t in zip(hashes, texts, strict=True) if h not in found}
        from_disk = self._cache.get_many(model_id, list(missing), backend.dimension) if missing else {}
        found.update(from_disk)
        embedded = 0
        with self._state_lock:
            self._vectors.update(from_disk)
        missing = {h: t for h, t in missing.items() if h not in found}
        todo = list(missing.items())
        # In slices: each is saved as it is done (a cold start cut short keeps what it embedded)
        # and reported to ``progress``. One embedder at a time, slice by slice: two selects
        # needing the same chunks embed them once, two model runs never fight over the cores,
        # and a selection waits for one slice of a long indexing run, not for all of it.
        for start in range(0, len(todo), EMBED_SLICE):
            with self._embed_lock:
                piece = todo[start : start + EMBED_SLICE]
                with self._state_lock:
                    found.update({h: self._vectors[h] for h, _ in piece if h in self._vectors})
                part = [(h, t) for h, t in piece if h not in found]
                if part:
                    run = backend.embed_in_background if background else backend.embed
                    new = run([t for _, t in part])
                    fresh = {h: new[r] for r, (h, _) in enumerate(part)}
                    self._cache.put_many(model_id, fresh)
                    with self._state_lock:
                        self._vectors.update(fresh)
                    found.update(fresh)
                    embedded += len(part)
            if self.progress is not None and len(todo) > EMBED_SLICE:
                self.progress(min(start + EMBED_SLICE, len(todo)), len(todo))
        return found, embedded, len(from_disk)

    def _prune_locked(self) -> None:
        """Drop memoised chunks and vectors no kept snapshot uses (keeps memory bounded)."""
        live_docs = {(s.scheme, d) for s in self._snapshots for d in s.documents}
        if len(self._chunk_memo) > 2 * len(live_docs):
            self._chunk_memo = {k: v for k, v in self._chunk_memo.items() if k in live_docs}
        live = sum(len(s.chunk_hashes) for s in self._snapshots)
        if len(self._vectors) > 2 * live + 1024:
            keep = {h for s in self._snapshots for h in s.chunk_hashes}
            self._vectors = {h: v for h, v in self._vectors.items() if h in keep}

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        """Unit vectors for ``texts``, one row each, through the same caches as documents (memory,
        then disk, then the model). Blocks while the model loads.

        Raises:
            IndexerError: the model failed to load or to embed.
        """
        backend = self._require_backend()
        text_list = list(texts)
        hashes = [text_hash(t) for t in text_list]
        vectors, _, _ = self._vectors_for(backend, text_list, hashes)
        matrix = np.empty((len(text_list), backend.dimension), dtype=np.float32)
        for row, h in enumerate(hashes):
            matrix[row] = vectors[h]
        return matrix

    # -- selection -----------------------------------------------------------------------------

    def select(
        self,
        query: str,
        documents: Sequence[Document],
        settings: SelectionSettings | None = None,
        previous_message: str | None = None,
        *,
        bodies_later: bool = False,
    ) -> Selection:
        """Rank ``documents`` against ``query`` and decide which to include. Blocks while the model
        loads and missing chunks are embedded, so call it off the GUI thread / event loop.

        ``previous_message`` (the user's message before this one) helps short follow-ups
        ("and the other one?"); the anchor strategy ignores it. ``bodies_later``: when the bodies
        of a large set still need embedding, judge those items on their name, description and
        examples now (:attr:`Selection.description_only` names them) and leave the bodies to
        :meth:`index_in_background`.

        Raises:
            IndexerError: the model failed to load or to embed.
            ValueError: two documents share a key.
        """
        settings = settings or SelectionSettings()
        start = time.perf_counter()
        backend = self._require_backend()
        load_ms = (time.perf_counter() - start) * 1000
        judged = documents = tuple(documents)
        description_only: frozenset[str] = frozenset()
        if bodies_later:
            tiered = self.tiers.judged(documents, settings.strategy)
            judged, description_only = tiered.documents, tiered.description_only
        snap, stats = self._snapshot(backend, judged, settings.strategy)
        if bodies_later and not description_only:
            self.tiers.mark_whole(documents, settings.strategy)

        search_start = time.perf_counter()
        ranking = None
        if len(snap.chunk_texts):
            ranking = _strategies.rank(
                settings,
                query=query,
                previous=previous_message,
                embed=backend.embed,
                matrix=snap.matrix,
                chunk_item=snap.chunk_item,
                n_items=len(snap.documents),
                extras=snap.extras,
            )
            if settings.strategy == "hybrid" and any(d.avoid or d.learned for d in snap.documents):
                ranking = self._corrections(query, snap.documents, ranking, settings)
        search_ms = (time.perf_counter() - search_start) * 1000
        timings = Timings(load_ms, stats.ms, search_ms, stats.chunks, stats.embedded, stats.from_disk)
        return Selection(
            query, settings.strategy, timings, snap.documents, snap.chunk_texts, ranking, description_only
        )

    def _corrections(
        self, query: str, documents: tuple[Document, ...], ranking: Ranking, settings: SelectionSettings
    ) -> Ranking:
        """``ranking`` with what the user taught for messages much like ``query``: items added
        after one are included, items removed after one left out."""
        owners = [(i, True) for i, d in enumerate(documents) for _ in d.learned]
        owners += [(i, False) for i, d in enumerate(documents) for _ in d.avoid]
        texts = [t for d in documents for t in d.learned] + [t for d in documents for t in d.avoid]
        vectors = self.embed([query, *texts])
        similarity = vectors[1:] @ vectors[0]
        learned = np.zeros(len(documents), dtype=np.bool_)
        removed = np.zeros(len(documents), dtype=np.bool_)
        for (owner, added), cosine in zip(owners, similarity, strict=True):
            if added and cosine >= settings.learned_similarity:
                learned[owner] = True
            elif not added and cosine >= settings.avoid_similarity:
                removed[owner] = True
        return corrected(ranking, learned, removed) if learned.any() or removed.any() else ranking

    def close(self) -> None:
        """Release the model and the cache file (waits for a load in progress, and for the slice
        of bodies being embedded in the background)."""
        self.tiers.stop()
        if self._load_thread is not None:
            self._load_thread.join()
        if self._backend is not None:
            self._backend.close()
        self._cache.close()


@dataclass(frozen=True)
class TieredTimings:
    """What :meth:`Indexer.index_descriptions_first` did now, and what it left to the background."""

    timings: Timings  # of the part done now
    description_only: frozenset[str] = frozenset()  # keys of the items whose bodies are left
    bodies_lacking: int = 0  # chunks those bodies lack, for the background to embed


@dataclass(frozen=True)
class _IndexStats:
    ms: float
    chunks: int
    embedded: int
    from_disk: int
