"""Opening an agent's memories from a command: the agent's settings, the database, the indexer."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agent_core.agent.loader import load_agent
from agent_core.context.embedding_model import configured_indexer
from agent_core.errors import SelectionUnavailableError
from agent_core.memory.book import MemoryBook
from agent_core.memory.store import MemoryStore
from agent_core.paths import user_dirs
from indexer import IndexerError

__all__ = ["open_memory_book"]


@contextmanager
def open_memory_book(agent_dir: Path) -> Iterator[MemoryBook]:
    """The memories of the agent in ``agent_dir``, expired ones already marked.

    Raises:
        AgentFileError: ``agent_dir`` is not an agent folder.
        SelectionUnavailableError: the embedding model cannot load.
        StoreError: the database cannot be used.
    """
    agent = load_agent(agent_dir)
    indexer = configured_indexer(user_dirs().embeddings_cache)
    store = MemoryStore()
    try:
        try:
            indexer.wait_until_ready()
        except IndexerError as error:
            raise SelectionUnavailableError(str(error)) from error
        book = MemoryBook(store, indexer, str(agent.root), agent.config.memory)
        book.expire()
        yield book
    finally:
        store.close()
        indexer.close()
