"""Fixtures for the memory tests: the real MiniLM once per session, a fresh database per test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent_core.agent.schema import MemoryConfig
from agent_core.memory.book import MemoryBook
from agent_core.memory.store import MemoryStore
from indexer import Indexer, onnx_backend


@pytest.fixture(scope="session")
def embedder() -> Iterator[Indexer]:
    indexer = Indexer(lambda: onnx_backend(threads=2))
    indexer.wait_until_ready()
    yield indexer
    indexer.close()


class Clock:
    """A settable clock, so that expiry and recency are tested without waiting."""

    def __init__(self, now: float = 1_790_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, days: float) -> None:
        self.now += days * 86400


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    memory_store = MemoryStore(tmp_path / "contextdesk.sqlite3")
    yield memory_store
    memory_store.close()


BookFactory = Callable[..., MemoryBook]


@pytest.fixture
def make_book(store: MemoryStore, embedder: Indexer, clock: Clock) -> BookFactory:
    def make(agent: str = "/agents/dev", **config: object) -> MemoryBook:
        return MemoryBook(store, embedder, agent, MemoryConfig(**config), clock=clock)  # type: ignore[arg-type]

    return make


@pytest.fixture
def book(make_book: BookFactory) -> MemoryBook:
    return make_book()
