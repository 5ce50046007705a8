"""Indexing in tiers: what decides first is embedded before the first selection, bodies after it.

An item's description tier is its name, description and examples (one short text each); its
body tier is the rest of its text (a skill's: its description sentence by sentence). When an
agent's bodies are far from embedded (a library of a thousand skills just imported), a selection
embeds only the description tiers it lacks and judges those items on them; :class:`BodyTiers`
then embeds the bodies on one background thread, a few items at a time, each slice saved in the
persistent embedding cache as it is done, so a restart (or a kill) keeps what was embedded and
the next start goes on from there.
"""

from __future__ import annotations

import atexit
import logging
import threading
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from indexer._texts import description_sentences
from indexer.documents import Document
from indexer.errors import IndexerError
from indexer.ranking import Strategy

__all__ = [
    "BODIES_LATER_MIN_CHUNKS",
    "BODY_SLICE_CHUNKS",
    "BodiesProgress",
    "BodyTiers",
    "Judged",
    "description_tier",
]

logger = logging.getLogger(__name__)

#: Bodies are left for later only when at least this many of their chunks still need embedding
#: (about half a minute on a laptop's CPU): a smaller agent is simply indexed whole, at once.
BODIES_LATER_MIN_CHUNKS = 2_000
#: The background embeds about this many chunks at a time: a selection that needs the model in
#: between waits at most for one slice (about a second).
BODY_SLICE_CHUNKS = 64
#: Documents remembered as embedded (or not); past this the memory is forgotten and rebuilt from
#: the cache, so editing an agent for days cannot grow it without bound.
_KNOWN_MAX = 200_000

HashesOf = Callable[[Strategy, Document], Sequence[bytes]]
Present = Callable[[Sequence[bytes]], set[bytes]]
EmbedDocuments = Callable[[Sequence[Document], Strategy], None]


def description_tier(document: Document) -> Document:
    """``document`` without its body: its name, description and examples. A tool has no body
    tier (its parameters are short and say which call it is), nor has an item without text.

    A skill has no body to leave; what it has beyond its ``name: description`` chunk is its
    description sentence by sentence (:func:`indexer._texts.description_sentences`: two or three
    more chunks a skill), and a thousand skills' sentences are most of their embedding. Its
    description tier is the description whole; the sentences are its "body" here."""
    if document.kind == "tool":
        return document
    if document.kind == "skill" and description_sentences(document):
        return replace(document, text="", by_sentence=False)
    return replace(document, text="") if document.text else document


@dataclass(frozen=True)
class Judged:
    """The documents a selection ranks, and which of them are only their description tier."""

    documents: tuple[Document, ...]
    description_only: frozenset[str]  # keys
    #: chunks the bodies of the description-only items still lack (0 when there are none).
    lacking_chunks: int = 0


@dataclass(frozen=True)
class BodiesProgress:
    """How far the background is with the bodies of the set it works on (see :attr:`BodyTiers.progress`)."""

    done: int  # body chunks of the set handled so far (embedded now, or found embedded)
    total: int  # body chunks the set lacked when the background began on it
    #: every body is in and the whole set's index is built: selections now rank whole items.
    finished: bool = False
    #: why the background stopped short (then ``finished`` is False).
    error: IndexerError | None = None


_RUNNING: weakref.WeakSet[BodyTiers] = weakref.WeakSet()


@atexit.register
def _stop_at_exit() -> None:
    """Stop background embedding before the interpreter goes (a model run cut off by the end of
    the process aborts it); each stops after its slice, which is kept."""
    for tiers in list(_RUNNING):
        tiers.stop()


class BodyTiers:
    """Which documents are embedded whole, and the background thread that embeds the rest.

    Thread-safe. ``hashes_of`` gives a document's chunk hashes; ``present`` which hashes already
    have a vector (memory or disk); ``embed_documents`` embeds documents whole (and keeps their
    vectors); ``finish`` prepares the whole set for fast selections once every body is in.
    """

    def __init__(
        self,
        hashes_of: HashesOf,
        present: Present,
        embed_documents: EmbedDocuments,
        finish: EmbedDocuments,
    ) -> None:
        self._hashes_of = hashes_of
        self._present = present
        self._embed_documents = embed_documents
        self._finish = finish
        self.min_chunks = BODIES_LATER_MIN_CHUNKS
        self._lock = threading.Lock()
        self._whole: set[tuple[Strategy, Document]] = set()
        self._missing: dict[tuple[Strategy, Document], int] = {}  # body chunks still to embed
        self._wanted: tuple[tuple[Document, ...], Strategy] | None = None
        self._wake = threading.Condition(self._lock)
        self._idle = threading.Event()
        self._idle.set()
        self._stopping = False
        self._thread: threading.Thread | None = None
        #: why the last background run stopped short (None: it did not).
        self.error: IndexerError | None = None
        #: Told how far the background is, from its thread: after each slice, once the set is
        #: finished, and when it stops short on an error (e.g. a status line). None: nobody asks.
        self.progress: Callable[[BodiesProgress], None] | None = None

    def mark_whole(self, documents: Sequence[Document], strategy: Strategy) -> None:
        """Remember ``documents`` as embedded whole (e.g. after a snapshot of them was built)."""
        with self._lock:
            if len(self._whole) + len(documents) > _KNOWN_MAX:
                self._whole.clear()
                self._missing.clear()
            for document in documents:
                self._whole.add((strategy, document))
                self._missing.pop((strategy, document), None)

    def judged(self, documents: tuple[Document, ...], strategy: Strategy) -> Judged:
        """What to rank now: ``documents`` themselves, or, when their bodies still lack at least
        :attr:`min_chunks` chunks, each item whose body is not embedded as its description tier."""
        with self._lock:
            unknown = [
                d
                for d in documents
                if (strategy, d) not in self._whole and (strategy, d) not in self._missing
            ]
        if unknown:
            self._learn(unknown, strategy)
        with self._lock:
            lacking = {d: self._missing.get((strategy, d), 0) for d in documents}
        if sum(lacking.values()) < self.min_chunks:
            return Judged(documents, frozenset())
        judged = tuple(description_tier(d) if lacking[d] else d for d in documents)
        return Judged(judged, frozenset(d.key for d in documents if lacking[d]), sum(lacking.values()))

    def _learn(self, documents: Sequence[Document], strategy: Strategy) -> None:
        """Find out (from memory and the cache) which of ``documents`` have their body embedded;
        the others are remembered with how many body chunks they lack (their description tier's
        chunks not counted: a selection embeds those whenever they are missing)."""
        bodies = {d: self._body_hashes(strategy, d) for d in documents}
        wanted = [h for d in documents for h in bodies[d]]
        present = self._present(wanted) if wanted else set()
        with self._lock:
            for document in documents:
                missing = sum(1 for h in bodies[document] if h not in present)
                if missing:
                    self._missing[(strategy, document)] = missing
                else:
                    self._whole.add((strategy, document))

    def _body_hashes(self, strategy: Strategy, document: Document) -> list[bytes]:
        head = description_tier(document)
        if head is document:
            return []
        heads = set(self._hashes_of(strategy, head))
        return [h for h in self._hashes_of(strategy, document) if h not in heads]

    # -- the background ------------------------------------------------------------------------

    def continue_in_background(self, documents: Sequence[Document], strategy: Strategy) -> None:
        """Embed the bodies of ``documents`` on the background thread; returns at once. A newer
        call replaces the set being worked on (what was embedded for the older one is kept)."""
        wanted = (tuple(documents), strategy)
        with self._lock:
            if self._stopping or self._wanted == wanted:  # every selection meanwhile asks again
                return
            self._wanted = wanted
            self._idle.clear()
            self.error = None
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="indexer-bodies", daemon=True)
                self._thread.start()
                _RUNNING.add(self)
            self._wake.notify()

    def wait_until_done(self, timeout: float | None = None) -> bool:
        """Wait until the background has nothing left to embed; True if it got there in time."""
        return self._idle.wait(timeout)

    def stop(self) -> None:
        """Stop the background after the slice it is embedding (what is embedded is kept)."""
        with self._lock:
            self._stopping = True
            self._wake.notify()
            thread = self._thread
        if thread is not None:
            thread.join()

    def _run(self) -> None:
        while True:
            with self._lock:
                while self._wanted is None and not self._stopping:
                    self._idle.set()
                    self._wake.wait()
                if self._stopping:
                    self._idle.set()
                    return
                assert self._wanted is not None
                documents, strategy = self._wanted
            try:
                done = self._embed_bodies(documents, strategy)
            except IndexerError as error:
                logger.warning("indexing item bodies in the background stopped: %s", error)
                done, self.error = True, error
                self._report(BodiesProgress(0, 0, error=error))
            except Exception as error:  # top level of a thread: log, keep the error, stop
                logger.exception("indexing item bodies in the background failed")
                done = True
                self.error = IndexerError(
                    f"Indexing item bodies failed ({error!r}); check the log, then reopen the agent."
                )
                self._report(BodiesProgress(0, 0, error=self.error))
            with self._lock:
                if done and self._wanted is not None and self._wanted[0] is documents:
                    self._wanted = None

    def _embed_bodies(self, documents: tuple[Document, ...], strategy: Strategy) -> bool:
        """Embed the bodies ``documents`` lack, slice by slice; False when stopped or replaced."""
        with self._lock:
            todo = [d for d in documents if (strategy, d) not in self._whole]
        unknown = [d for d in todo if (strategy, d) not in self._missing]
        if unknown:
            self._learn(unknown, strategy)
        with self._lock:
            total = sum(self._missing.get((strategy, d), 0) for d in todo)
        self._report(BodiesProgress(0, total))
        part: list[Document] = []
        chunks = done = 0
        for document in todo:
            with self._lock:
                if self._stopping or self._wanted is None or self._wanted[0] is not documents:
                    return False
                missing = self._missing.get((strategy, document), 0)
            if not missing:
                continue
            part.append(document)
            chunks += missing
            if chunks >= BODY_SLICE_CHUNKS:
                self._embed_documents(part, strategy)
                done += chunks
                self._report(BodiesProgress(done, total))
                part, chunks = [], 0
        if part:
            self._embed_documents(part, strategy)
            self._report(BodiesProgress(total, total))
        with self._lock:
            if self._stopping or self._wanted is None or self._wanted[0] is not documents:
                return False
        # Selections meanwhile keep ranking one set (the description tiers), not a new mix after
        # every slice (each a matrix of its own); they switch once the whole set is ready.
        self._finish(documents, strategy)
        self.mark_whole(todo, strategy)
        self._report(BodiesProgress(total, total, finished=True))
        return True

    def _report(self, progress: BodiesProgress) -> None:
        listener = self.progress
        if listener is None:
            return
        try:
            listener(progress)
        except Exception:  # a listener's fault must not stop the bodies or leave them unfinished
            logger.exception("a listener of the background indexing failed")
