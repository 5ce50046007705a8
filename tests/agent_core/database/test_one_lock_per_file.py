"""Every store on the app's database file (chats, memories, workflow runs, what selection learned)
shares the file's one lock in the process: writes from many threads through several stores take
turns instead of meeting each other as "database is locked", and a store kept waiting too long
by another says so instead of hanging."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent_core.context.items import ItemRef
from agent_core.context.learned import LearnedSelections
from agent_core.database import base
from agent_core.database.errors import StoreError
from agent_core.memory.records import Memory, MemoryEvent, Provenance
from agent_core.memory.store import MemoryFilter, MemoryStore
from agent_core.store.chats import ChatStore
from agent_core.workflows.run_store import WorkflowRunStore

WRITES_PER_THREAD = 100


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "contextdesk.sqlite3"


@pytest.fixture
def chats(database: Path) -> Iterator[ChatStore]:
    # No wait for a lock held by another connection: this program's own writes must never need one.
    store = ChatStore(database, busy_timeout=0)
    yield store
    store.close()


@pytest.fixture
def memories(database: Path) -> Iterator[MemoryStore]:
    store = MemoryStore(database, busy_timeout=0)
    yield store
    store.close()


def a_memory(number: int) -> tuple[Memory, MemoryEvent]:
    now = time.time()
    memory = Memory(
        id=f"m-{number}",
        text=f"fact number {number}",
        kind="fact",
        scope="global",
        tier="long",
        status="active",
        importance=3,
        agent="",
        session_id=None,
        provenance=Provenance(),
        created_at=now,
        updated_at=now,
    )
    return memory, MemoryEvent(memory.id, "created", "user", now)


def test_every_store_on_one_file_shares_one_lock_whatever_the_path_spelling(
    database: Path, chats: ChatStore, memories: MemoryStore, tmp_path: Path
) -> None:
    (tmp_path / "elsewhere").mkdir()
    runs = WorkflowRunStore(tmp_path / "elsewhere" / ".." / database.name)
    learned = LearnedSelections(database)
    other = ChatStore(tmp_path / "another.sqlite3")
    try:
        assert chats._lock is memories._lock is runs._lock is learned._lock
        assert other._lock is not chats._lock  # another file, another lock
    finally:
        for store in (runs, learned, other):
            store.close()


def test_writes_from_threads_through_two_stores_on_one_file_never_meet_a_locked_database(
    chats: ChatStore, memories: MemoryStore
) -> None:
    session = chats.create_session(title="busy")
    start = threading.Barrier(4)
    failures: list[BaseException] = []

    def run(write: Callable[[int], None], offset: int) -> None:
        start.wait(timeout=10)
        try:
            for number in range(offset, offset + WRITES_PER_THREAD):
                write(number)
        except StoreError as error:
            failures.append(error)

    def add_memory(number: int) -> None:
        memory, event = a_memory(number)
        with memories.write() as writes:
            writes.insert(memory, None, event)

    def add_message(number: int) -> None:
        chats.add_message(session.id, "user", f"message {number}")

    threads = [
        threading.Thread(target=run, args=(add_message, 0)),
        threading.Thread(target=run, args=(add_message, 1000)),
        threading.Thread(target=run, args=(add_memory, 0)),
        threading.Thread(target=run, args=(add_memory, 1000)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)
    assert failures == []
    assert len(chats.messages(session.id)) == 2 * WRITES_PER_THREAD
    assert len(memories.find(MemoryFilter(agent=""))) == 2 * WRITES_PER_THREAD


def test_a_store_used_inside_another_stores_write_on_the_same_thread_does_not_wait_for_itself(
    chats: ChatStore, memories: MemoryStore
) -> None:
    session = chats.create_session(title="nested")
    memory, event = a_memory(1)
    with memories.write() as writes:
        writes.insert(memory, None, event)
        # The lock is re-entrant: the thread holding it reads through another store at once.
        assert [s.id for s in chats.sessions()] == [session.id]
    assert memories.get(memory.id) == memory


def test_a_store_kept_waiting_past_the_limit_by_another_says_so_and_works_once_it_is_free(
    chats: ChatStore, memories: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(base, "LOCK_WAIT_SECONDS", 0.2)
    holding, release = threading.Event(), threading.Event()

    def long_write() -> None:
        memory, event = a_memory(1)
        with memories.write() as writes:
            writes.insert(memory, None, event)
            holding.set()
            release.wait(timeout=30)

    writer = threading.Thread(target=long_write)
    writer.start()
    try:
        assert holding.wait(timeout=10)
        with pytest.raises(StoreError) as raised:
            chats.create_session(title="waits")
        assert raised.value.problem == "locked"
        assert "another task of this program" in str(raised.value)
        assert "let it finish" in str(raised.value)
    finally:
        release.set()
        writer.join(timeout=30)
    assert chats.create_session(title="after").title == "after"
    assert [m.id for m in memories.find(MemoryFilter(agent=""))] == ["m-1"]


def test_a_closed_store_says_so_and_the_others_on_the_file_go_on(
    database: Path, chats: ChatStore, memories: MemoryStore
) -> None:
    learned = LearnedSelections(database)
    learned.close()
    with pytest.raises(StoreError, match="closed"):
        learned.record("/agents/a", ItemRef("rule", "style"), "hello", added=True)
    assert chats.create_session(title="still open").title == "still open"
    assert memories.find(MemoryFilter(agent="")) == []
