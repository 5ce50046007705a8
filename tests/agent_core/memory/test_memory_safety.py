"""A crash in the middle of a write leaves no half-written memory; the memory code opens no sockets."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent_core.memory.book import MemoryBook, MemoryDraft
from agent_core.memory.jsonl import memory_line
from agent_core.memory.recall import recall
from agent_core.memory.store import MemoryStore
from indexer import Indexer

pytestmark = pytest.mark.slow

CRASH_MID_WRITE = textwrap.dedent(
    """
    import os, sys
    from agent_core.memory.records import Memory, MemoryEvent, Provenance
    from agent_core.memory.store import MemoryStore
    store = MemoryStore(__import__("pathlib").Path(sys.argv[1]))
    with store.write() as writes:
        for n in range(3):
            memory = Memory(f"m-{n}", f"fact {n}", "fact", "agent", "long", "active", 3, "/a", None,
                            Provenance(), 1.0, 1.0)
            writes.insert(memory, None, MemoryEvent(memory.id, "created", "user", 1.0))
        os._exit(9)  # killed before the commit
    """
)


def test_a_process_killed_mid_transaction_leaves_no_memory(tmp_path: Path) -> None:
    database = tmp_path / "contextdesk.sqlite3"
    MemoryStore(database).close()
    crashed = subprocess.run([sys.executable, "-c", CRASH_MID_WRITE, str(database)], timeout=60, check=False)
    assert crashed.returncode == 9
    store = MemoryStore(database)
    assert store.ids() == set() and store.history("m-0") == []
    store.close()


def test_the_memory_code_opens_no_sockets(
    book: MemoryBook, embedder: Indexer, store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[object] = []

    def refuse(*args: object, **kwargs: object) -> socket.socket:
        opened.append(args)
        raise AssertionError("the memory code opened a socket")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    memory = book.add(MemoryDraft("our database is MySQL 8")).memory
    book.add(MemoryDraft("we moved to PostgreSQL 16"))
    book.edit(memory.id, "our old database was MySQL 8")
    recall(
        book.index, "which database?", embedder.embed(["which database?"])[0], book.config, session_id=None
    )
    [memory_line(m) for m in book.find(statuses=None)]
    book.expire(), book.prune(), book.purge()
    assert opened == []
