"""Choosing agent-mode items for one message with the local indexer, off the event loop.

The selector never holds a request up for long: if the embedding model is not loaded within
``model_wait_seconds``, or selection fails, the request goes on without agent items and the
RequestContext says why.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from agent_core.agent.items import DocumentItem
from agent_core.agent.schema import SelectionConfig
from agent_core.context.duplicates import fold_duplicates
from agent_core.context.embedding_model import configured_indexer
from agent_core.context.items import ItemRef, NearMiss, RequestItem, SelectionRun
from agent_core.context.judged_short import judged_short_reason, what_follows
from agent_core.context.learned import Correction, LearnedSelections, taught
from agent_core.context.selection_bound import bounded, over_top_n_reason
from agent_core.context.selection_floors import message_floor, threshold_miss
from agent_core.database.errors import StoreError
from agent_core.errors import SelectionUnavailableError
from agent_core.paths import user_dirs
from indexer import Document, Indexer, IndexerError, ScoredDocument, SelectionSettings, tool_document
from indexer.tiers import BodiesProgress

__all__ = [
    "BodiesProgress",
    "Candidate",
    "ContextSelector",
    "IndexingDone",
    "SelectionOutcome",
    "document_candidate",
    "tool_candidate",
]

logger = logging.getLogger(__name__)

NEAR_MISSES_KEPT = 8


@dataclass(frozen=True)
class Candidate:
    ref: ItemRef
    document: Document


@dataclass(frozen=True)
class IndexingDone:
    """What indexing ahead did."""

    chunks: int  # chunks indexed now, in all (only the description tiers when bodies are left)
    embedded: int  # of which newly embedded (the rest came from the cache)
    seconds: float
    items: int = 0  # items indexed (duplicates folded: one per item, as selection ranks them)
    #: items indexed on their description tier only: their bodies are being embedded in the
    #: background (``Indexer.tiers.progress`` tells how far); 0 when everything was indexed now.
    bodies_left: int = 0
    bodies_lacking: int = 0  # chunks those bodies lack
    #: what those are, for a status line: "bodies", "sentences" (skills') or both
    follows: str = "bodies"


@dataclass(frozen=True)
class SelectionOutcome:
    items: tuple[RequestItem, ...]
    near_misses: tuple[NearMiss, ...]
    run: SelectionRun
    #: how each selected item got in: "text", "example", "clause" or "learned" (see indexer.Via).
    via: Mapping[ItemRef, str] = field(default_factory=dict)


def document_candidate(item: DocumentItem) -> Candidate:
    ref = ItemRef(item.kind, item.name)
    return Candidate(
        ref,
        Document(
            key=ref.key,
            kind=item.kind,
            name=item.name,
            description=item.description,
            text=item.text,
            examples=item.examples,
        ),
    )


def tool_candidate(server: str, name: str, description: str, input_schema: dict[str, object]) -> Candidate:
    return Candidate(ItemRef("tool", name, server), tool_document(server, name, description, input_schema))


def indexer_settings(config: SelectionConfig) -> SelectionSettings:
    settings = SelectionSettings(
        strategy=config.strategy,
        top_k=config.top_k,
        top_n=config.top_n,
        include_score=config.include_score,
    )
    if config.min_score is not None:
        settings = replace(settings, min_score=config.min_score)
    return head_settings(settings, config)


def head_settings(settings: SelectionSettings, config: SelectionConfig) -> SelectionSettings:
    """``settings`` with the rare-name and head-field settings ``config`` gives (None: the indexer's)."""
    chosen = {
        key: value
        for key in (
            "rare_name_weight",
            "rare_name_max_items",
            "rare_name_proper",
            "rare_name_lift",
            "head_lexical_weight",
            "head_lexical_share",
            "body_noise_slope",
            "head_agreement_slope",
            "template_family_min",
            "twin_similarity",
            "definition_top_n",
        )
        if (value := getattr(config, key)) is not None
    }
    return replace(settings, **chosen) if chosen else settings


class ContextSelector:
    """One indexer (one embedding model in memory) shared by every chat of the app."""

    def __init__(
        self,
        indexer: Indexer | None = None,
        *,
        cache_dir: Path | None = None,
        model_wait_seconds: float = 20.0,
        bodies_in_background: bool = True,
    ) -> None:
        """``bodies_in_background``: after a selection judged items on their description only,
        embed their bodies on the indexer's background thread (an app); False for a process that
        exits after answering (``contextdesk select``), which leaves them to ``contextdesk index``."""
        self._indexer = indexer or configured_indexer(cache_dir or user_dirs().embeddings_cache)
        self.model_wait_seconds = model_wait_seconds
        self.bodies_in_background = bodies_in_background
        # What the user taught by adding and removing items (set by the workspace); None: nothing.
        self.learned: LearnedSelections | None = None

    @property
    def indexer(self) -> Indexer:
        return self._indexer

    def start_loading(self) -> None:
        """Begin loading the embedding model in the background; returns at once."""
        self._indexer.start_loading()

    def model_ready(self) -> bool:
        """Whether the embedding model has loaded; only looks (no waiting, no new load attempt).

        Raises:
            SelectionUnavailableError: the model failed to load; the message says why.
        """
        error = self._indexer.load_error
        if error is not None:
            raise SelectionUnavailableError(str(error)) from error
        return self._indexer.is_ready()

    async def wait_for_model(self) -> bool:
        """Wait, off the event loop and with no time limit, until the embedding model has loaded.
        False when it failed to load: :meth:`model_ready` then raises the reason."""
        try:
            return await asyncio.to_thread(self._indexer.wait_until_ready)
        except IndexerError:
            return False

    async def index_ahead(
        self, candidates: Sequence[Candidate], config: SelectionConfig, *, agent_path: str | None = None
    ) -> IndexingDone:
        """Embed ``candidates`` now, off the event loop, so the first :meth:`select` among them does
        not wait. Embeddings are cached by text: calling it again only embeds what changed.

        In tiers, as :meth:`select` does: when their bodies lack at least
        ``BODIES_LATER_MIN_CHUNKS`` chunks, only the description tiers are embedded now and the
        bodies are handed to the indexer's background worker (the one selection uses);
        :attr:`IndexingDone.bodies_left` then says how many. A smaller set is embedded whole.
        ``agent_path``: the agent whose corrections :meth:`select` will apply, so that both hand
        the background the same documents.

        Raises:
            SelectionUnavailableError: the model failed to load or to embed.
        """
        kept, _ = await asyncio.to_thread(fold_duplicates, candidates)
        documents = await self._taught([c.document for c in kept], agent_path)
        strategy = config.strategy
        try:
            done = await asyncio.to_thread(self._indexer.index_descriptions_first, documents, strategy)
        except IndexerError as error:
            raise SelectionUnavailableError(str(error)) from error
        timings = done.timings
        return IndexingDone(
            timings.chunks,
            timings.embedded,
            timings.index_ms / 1000,
            items=len(documents),
            bodies_left=len(done.description_only),
            bodies_lacking=done.bodies_lacking,
            follows=what_follows(d.kind for d in documents if d.key in done.description_only),
        )

    async def _taught(self, documents: list[Document], agent_path: str | None) -> list[Document]:
        """``documents`` with what the user taught for the agent at ``agent_path``."""
        corrections = await self._corrections(agent_path)
        return taught(documents, corrections) if corrections else documents

    async def _corrections(self, agent_path: str | None) -> list[Correction]:
        if self.learned is None or agent_path is None:
            return []
        try:
            return await asyncio.to_thread(self.learned.corrections, agent_path)
        except StoreError as error:
            logger.warning("what selection learned could not be read: %s", error)
            return []

    async def select(
        self,
        message: str,
        candidates: Sequence[Candidate],
        config: SelectionConfig,
        previous_message: str | None = None,
        *,
        agent_path: str | None = None,
    ) -> SelectionOutcome:
        """Agent items for ``message`` among ``candidates``, with what the user taught for the
        agent at ``agent_path`` applied; never raises for selection faults."""
        run = SelectionRun(
            top_k=config.top_k,
            top_n=config.top_n,
            include_score=config.include_score,
            strategy=config.strategy,
        )
        if not candidates:
            return SelectionOutcome((), (), replace(run, status="no_candidates"))
        started = time.perf_counter()
        try:
            ready = await asyncio.to_thread(self._indexer.wait_until_ready, self.model_wait_seconds)
        except IndexerError as error:
            return SelectionOutcome((), (), replace(run, status="failed", detail=str(error)))
        if not ready:
            return SelectionOutcome(
                (), (), replace(run, status="model_loading", detail="the embedding model was still loading")
            )
        candidates, folded = await asyncio.to_thread(fold_duplicates, candidates)  # one place per item
        by_key = {c.document.key: c.ref for c in candidates}
        corrections = await self._corrections(agent_path)
        documents = taught([c.document for c in candidates], corrections)
        settings = indexer_settings(config)
        try:
            selection = await asyncio.to_thread(
                functools.partial(self._indexer.select, bodies_later=True),
                message,
                documents,
                settings,
                previous_message,
            )
        except (IndexerError, ValueError) as error:
            logger.warning("selection failed: %s", error)
            return SelectionOutcome((), (), replace(run, status="failed", detail=str(error)))
        if selection.description_only and self.bodies_in_background:
            self._indexer.index_in_background(documents, settings.strategy)  # after this answer
        short = {
            key: judged_short_reason(by_key[key], self.bodies_in_background)
            for key in selection.description_only
            if key in by_key
        }
        why = _Reasons(message, corrections, short)
        # topN bounds the message whatever put an item in (clauses, examples, learning, includeScore).
        kept, over = bounded([c for c in selection.included if c.key in by_key], config.top_n)
        items = tuple(
            RequestItem(by_key[c.key], "agent", round(c.score, 4), reason=why.included(c)) for c in kept
        )
        floor, raised = message_floor(settings, message)
        run = replace(
            run,
            description_only=tuple(by_key[k] for k in sorted(selection.description_only) if k in by_key),
            min_score=settings.min_score if settings.strategy == "hybrid" else None,
            question_floor=round(floor - settings.min_score, 4) if raised else 0.0,
        )
        over_reason = over_top_n_reason(config.top_n)
        misses = (
            *(NearMiss(by_key[c.key], round(c.score, 4), over_reason) for c in over),
            *(
                NearMiss(by_key[c.key], round(c.score, 4), *why.left_out(c, settings))
                for c in selection.best(len(selection.included) + NEAR_MISSES_KEPT)
                if not c.included and c.key in by_key
            ),
        )[:NEAR_MISSES_KEPT]
        misses += folded.near_misses(items, misses)
        elapsed = (time.perf_counter() - started) * 1000
        via = {by_key[c.key]: c.via for c in kept}
        return SelectionOutcome(items, misses, replace(run, status="ok", elapsed_ms=round(elapsed, 1)), via)


class _Reasons:
    """Why an item is in a request, or out of it, in words for View Context."""

    def __init__(
        self,
        message: str,
        corrections: Sequence[Correction],
        judged_short: Mapping[str, str] | None = None,
    ) -> None:
        self.message = message
        self.corrections = corrections
        #: key -> why its score may change once indexed, for the items judged short
        self.judged_short = judged_short or {}

    def _correction(self, key: str, added: bool) -> Correction | None:
        # The newest of the item's corrections of this kind: the one that most likely matched.
        found = [c for c in self.corrections if c.ref.key == key and c.added is added]
        exact = [c for c in found if c.message == self.message]
        return (exact or found)[-1] if found else None

    def included(self, candidate: ScoredDocument) -> str:
        reason = self._included(candidate)
        if words := self.judged_short.get(candidate.key):
            return f"{reason}; {words}" if reason else words
        return reason

    def _included(self, candidate: ScoredDocument) -> str:
        if candidate.via == "learned" and (correction := self._correction(candidate.key, True)):
            return f"selected because {correction.describe()}"
        if candidate.via == "example":
            return f"matched its example “{candidate.best_chunk}”"
        if candidate.via == "clause":
            return "needed by one of the requests in the message"
        return ""

    def left_out(self, candidate: ScoredDocument, settings: SelectionSettings) -> tuple[str, float | None]:
        """Why ``candidate`` was left out, and the score it needed when a floor did it."""
        if candidate.reason == "removed_for_similar" and (
            correction := self._correction(candidate.key, False)
        ):
            return correction.describe(), None
        return threshold_miss(candidate, settings, self.message)
