"""Memories for chats: one store for the app, one book per agent, and recall for a request,
turned into RequestContext items with the reason each memory is there."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from agent_core.agent.agent import Agent
from agent_core.agent.schema import MemoryConfig
from agent_core.context.items import ItemRef, NearMiss, RequestItem
from agent_core.context.selection import ContextSelector
from agent_core.errors import ContextDeskError
from agent_core.memory.book import MemoryBook
from agent_core.memory.facets import FacetSpace
from agent_core.memory.recall import pins_over_budget_note, recall
from agent_core.memory.records import Memory
from agent_core.memory.store import MemoryFilter, MemoryStore
from indexer import IndexerError

__all__ = ["MemoryService", "RecalledMemories"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RecalledMemories:
    """What one message recalled, as RequestContext parts, with the texts the prompt needs."""

    items: tuple[RequestItem, ...] = ()
    near_misses: tuple[NearMiss, ...] = ()
    texts: dict[str, str] = field(default_factory=dict)  # memory id -> text, for the prompt
    note: str = ""  # why nothing was recalled though memory is on, or what pinned ones were left out


class MemoryService:
    """The app's memories (in the chat database file), read through the selector's embedding model."""

    def __init__(self, database: Path, selector: ContextSelector) -> None:
        self._database = database
        self._selector = selector
        self._store: MemoryStore | None = None
        self._books: dict[str, MemoryBook] = {}
        self._lock = threading.RLock()

    def book_for(self, agent: Agent) -> MemoryBook:
        """The agent's memories; expired ones are marked and old forgotten ones purged on first use.
        Blocks (the model may load): call it off the event loop.

        Raises:
            StoreError: the database cannot be used.
            IndexerError: the embedding model failed to load.
        """
        key = str(agent.root)
        with self._lock:
            book = self._books.get(key)
            if book is None:
                store = self._open_store()
                self._selector.indexer.wait_until_ready()
                book = MemoryBook(store, self._selector.indexer, key, agent.config.memory)
                book.expire()
                book.prune()
                book.purge()
                self._books[key] = book
            book.config = agent.config.memory
            return book

    async def recall(
        self,
        agent: Agent,
        message: str,
        config: MemoryConfig,
        *,
        session_id: str | None,
        excluded: Collection[str] = (),
        forced: Collection[str] = (),
        mark_used: bool = False,
    ) -> RecalledMemories:
        """The memories ``message`` recalls; never raises for a model or database fault (the note
        says what went wrong). ``mark_used``: they go into a sent request (see :meth:`mark_used`).

        Raises:
            StoreError: with ``mark_used``, their use could not be written.
        """
        if not config.enabled:
            return RecalledMemories()
        try:
            anything = await asyncio.to_thread(self._open_store().has_active, str(agent.root), session_id)
        except ContextDeskError as error:
            return RecalledMemories(note=f"no memories were recalled: {error}")
        if not anything:
            return RecalledMemories()
        try:
            ready = await asyncio.to_thread(
                self._selector.indexer.wait_until_ready, self._selector.model_wait_seconds
            )
        except IndexerError as error:
            return RecalledMemories(note=f"no memories were recalled: {error}")
        if not ready:
            return RecalledMemories(note="no memories were recalled: the embedding model was still loading")
        try:
            recalled = await asyncio.to_thread(
                self._recall, agent, message, config, session_id, excluded, forced
            )
        except (ContextDeskError, IndexerError) as error:
            logger.warning("memory recall failed: %s", error)
            return RecalledMemories(note=f"no memories were recalled: {error}")
        if mark_used:
            await asyncio.to_thread(self.mark_used, [item.ref.name for item in recalled.items])
        return recalled

    def _recall(
        self,
        agent: Agent,
        message: str,
        config: MemoryConfig,
        session_id: str | None,
        excluded: Collection[str],
        forced: Collection[str],
    ) -> RecalledMemories:
        book = self.book_for(agent)
        vector = self._selector.indexer.embed([message])[0]
        result = recall(
            book.index,
            message,
            vector,
            config,
            session_id=session_id,
            excluded=excluded,
            forced=forced,
            facets=FacetSpace.of(self._selector.indexer),
        )
        items = tuple(
            RequestItem(
                ItemRef("memory", r.memory.id),
                "always" if r.memory.tier == "pinned" else "manual" if r.memory.id in forced else "agent",
                round(r.relevance, 4),
                r.reason,
            )
            for r in result.recalled
        )
        misses = tuple(
            NearMiss(ItemRef("memory", r.memory.id), round(r.relevance, 4), r.reason)
            for r in result.near_misses
        )
        texts = {r.memory.id: r.memory.text for r in (*result.recalled, *result.near_misses)}
        note = (
            pins_over_budget_note(result.pinned_left_out, config.max_tokens) if result.pinned_left_out else ""
        )
        return RecalledMemories(items, misses, texts, note)

    def find(self, agent: Agent, statuses: Collection[str] | None, text: str = "") -> list[Memory]:
        """The agent's memories (every scope and chat it can see) with these statuses, newest
        first; reads the database only, no model.

        Raises:
            StoreError: the database cannot be read.
        """
        where = MemoryFilter(
            agent=str(agent.root),
            statuses=frozenset(statuses) if statuses is not None else None,
            text=text,
            include_other_chats=True,
        )
        return self._open_store().find(where)

    def texts(self, memory_ids: Collection[str]) -> dict[str, str]:
        """The current words of these memories (those still kept), by id; no model needed.

        Raises:
            StoreError: the database cannot be read.
        """
        if not memory_ids:
            return {}
        return self._open_store().texts(list(memory_ids))

    def _open_store(self) -> MemoryStore:
        with self._lock:
            if self._store is None:
                self._store = MemoryStore(self._database)
            return self._store

    def mark_used(self, memory_ids: Collection[str]) -> None:
        """The memories went into a sent request (recency and use counts; not for what-if)."""
        if memory_ids and self._store is not None:
            self._store.mark_used(list(memory_ids), time.time())

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None
            self._books.clear()
