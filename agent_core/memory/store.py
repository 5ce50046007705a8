"""Memories in the app's SQLite database (beside the chats, never in agent files).

Every change is written together with its history event in one transaction, so a crash leaves
either the whole change or none of it. Blocking calls: callers on an event loop or the GUI
thread run them with ``asyncio.to_thread``. The store shares the database file's one lock with
every other store on it in this process (``agent_core.database.base``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from agent_core.database.base import SqliteStore
from agent_core.memory.records import Memory, MemoryEvent, Provenance

__all__ = ["MemoryFilter", "MemoryStore", "StoredVector", "Writes"]

Vector = npt.NDArray[np.float32]

_COLUMNS = (
    "id, text, kind, scope, tier, status, importance, agent, session_id, source_session, "
    "source_message, speaker, quote, created_at, updated_at, last_used_at, use_count, seen_count, "
    "expires_at, superseded_by, supersedes"
)


@dataclass(frozen=True)
class StoredVector:
    """A memory's embedding, and which model made it (vectors of another model are not comparable)."""

    model: str
    vector: Vector


@dataclass(frozen=True)
class MemoryFilter:
    """Which memories a listing shows: those an agent (and a chat of it) can see."""

    agent: str
    session_id: str | None = None
    statuses: frozenset[str] | None = None  # None: every status
    scopes: frozenset[str] | None = None
    text: str = ""  # case-insensitive substring
    include_other_chats: bool = False  # chat-scoped memories of every chat, not only session_id's


class Writes:
    """The changes of one transaction (see :meth:`MemoryStore.write`)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def insert(self, memory: Memory, vector: StoredVector | None, event: MemoryEvent) -> None:
        p = memory.provenance
        self._db.execute(
            f"INSERT INTO memories ({_COLUMNS}, embedding_model, embedding) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                memory.id, memory.text, memory.kind, memory.scope, memory.tier, memory.status,
                memory.importance, memory.agent, memory.session_id, p.session_id, p.message_id,
                p.speaker, p.quote, memory.created_at, memory.updated_at, memory.last_used_at,
                memory.use_count, memory.seen_count, memory.expires_at, memory.superseded_by,
                memory.supersedes, vector.model if vector else None, _blob(vector),
            ),
        )  # fmt: skip
        self.event(event)

    def update(self, memory: Memory, event: MemoryEvent, vector: StoredVector | None = None) -> None:
        """Write ``memory`` over the stored row of the same id (and its vector when given)."""
        cursor = self._db.execute(
            "UPDATE memories SET text=?, kind=?, scope=?, tier=?, status=?, importance=?, agent=?, "
            "session_id=?, updated_at=?, last_used_at=?, use_count=?, seen_count=?, expires_at=?, "
            "superseded_by=?, supersedes=? WHERE id=?",
            (
                memory.text, memory.kind, memory.scope, memory.tier, memory.status, memory.importance,
                memory.agent, memory.session_id, memory.updated_at, memory.last_used_at,
                memory.use_count, memory.seen_count, memory.expires_at, memory.superseded_by,
                memory.supersedes, memory.id,
            ),
        )  # fmt: skip
        if cursor.rowcount != 1:
            raise KeyError(memory.id)
        if vector is not None:
            self._db.execute(
                "UPDATE memories SET embedding_model=?, embedding=? WHERE id=?",
                (vector.model, _blob(vector), memory.id),
            )
        self.event(event)

    def touch(self, memory_ids: Sequence[str], at: float) -> None:
        self._db.executemany(
            "UPDATE memories SET last_used_at=?, use_count=use_count+1 WHERE id=?",
            [(at, memory_id) for memory_id in memory_ids],
        )

    def delete(self, memory_id: str) -> None:
        """Remove a memory and its history for good (delete-all and purge only)."""
        self._db.execute("DELETE FROM memories WHERE id=?", (memory_id,))
        self._db.execute("DELETE FROM memory_events WHERE memory_id=?", (memory_id,))

    def event(self, event: MemoryEvent) -> None:
        self._db.execute(
            "INSERT INTO memory_events (memory_id, event, actor, at, old_text, new_text, detail) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                event.memory_id,
                event.event,
                event.actor,
                event.at,
                event.old_text,
                event.new_text,
                event.detail,
            ),
        )


class MemoryStore(SqliteStore):
    """All memories of this user, in the app's database file."""

    def __init__(self, path: Path | None = None, *, busy_timeout: float = 10.0) -> None:
        super().__init__(path, busy_timeout=busy_timeout)
        self._writes = 0  # bumped by every write made through this store

    @property
    def generation(self) -> tuple[int, int]:
        """Changes when any program changed the memories: a recall index built at one generation
        is stale at another."""
        with self._reading("could not read the memories") as db:
            (data_version,) = db.execute("PRAGMA data_version").fetchone()
            return int(data_version), self._writes

    @contextmanager
    def write(self, doing: str = "could not save the memory") -> Iterator[Writes]:
        """One transaction: every change made through the yielded ``Writes`` commits, or none.
        Inside :meth:`batch`, a savepoint instead: undone alone, committed with the batch.

        Raises:
            StoreError: the database could not be written; the message says why and the fix.
        """
        with self._lock.held(doing):
            with self._transaction(doing) as db:
                yield Writes(db)
            self._writes += 1

    @contextmanager
    def batch(self, doing: str = "could not save the memories") -> Iterator[None]:
        """Every :meth:`write` made inside commits together at the end (one transaction for many
        memories: a bulk import), or none of them does.

        Raises:
            StoreError: the database could not be written; the message says why and the fix.
        """
        with self.write(doing):
            yield

    def get(self, memory_id: str) -> Memory | None:
        rows = self._query(f"SELECT {_COLUMNS} FROM memories WHERE id=?", (memory_id,))
        return _memory(rows[0]) if rows else None

    def find(self, where: MemoryFilter) -> list[Memory]:
        """Memories matching ``where``, newest first."""
        clause, params = _owner_clause(where.agent, where.session_id, where.include_other_chats)
        if where.statuses is not None:
            clause += f" AND status IN ({','.join('?' * len(where.statuses))})"
            params += sorted(where.statuses)
        if where.scopes is not None:
            clause += f" AND scope IN ({','.join('?' * len(where.scopes))})"
            params += sorted(where.scopes)
        if where.text:
            clause += " AND instr(lower(text), ?) > 0"
            params.append(where.text.lower())
        rows = self._query(
            f"SELECT {_COLUMNS} FROM memories WHERE {clause} ORDER BY created_at DESC, id", params
        )
        return [_memory(row) for row in rows]

    def with_vectors(
        self, agent: str, session_id: str | None, statuses: Sequence[str], *, every_chat: bool = False
    ) -> list[tuple[Memory, StoredVector | None]]:
        """Memories an agent's chat (or, ``every_chat``, any of its chats) can see in ``statuses``,
        with their stored embeddings."""
        clause, params = _owner_clause(agent, session_id, every_chat)
        clause += f" AND status IN ({','.join('?' * len(statuses))})"
        rows = self._query(
            f"SELECT {_COLUMNS}, embedding_model, embedding FROM memories WHERE {clause} ORDER BY id",
            [*params, *statuses],
        )
        return [(_memory(row), _vector(row["embedding_model"], row["embedding"])) for row in rows]

    def history(self, memory_id: str) -> list[MemoryEvent]:
        rows = self._query(
            "SELECT memory_id, event, actor, at, old_text, new_text, detail FROM memory_events "
            "WHERE memory_id=? ORDER BY id",
            (memory_id,),
        )
        return [
            MemoryEvent(
                r["memory_id"], r["event"], r["actor"], r["at"], r["old_text"], r["new_text"], r["detail"]
            )
            for r in rows
        ]

    def texts(self, memory_ids: Sequence[str]) -> dict[str, str]:
        """The current text of each memory that is still kept (forgotten ones too, until purged)."""
        found: dict[str, str] = {}
        for memory_id in memory_ids:
            rows = self._query("SELECT text FROM memories WHERE id=?", (memory_id,))
            if rows:
                found[memory_id] = rows[0]["text"]
        return found

    def has_active(self, agent: str, session_id: str | None) -> bool:
        """Whether a chat of ``agent`` has any memory to recall (a quick check before the model
        is asked for: an agent without memories never waits for it)."""
        clause, params = _owner_clause(agent, session_id, False)
        return bool(self._query(f"SELECT 1 FROM memories WHERE {clause} AND status='active' LIMIT 1", params))

    def ids(self) -> set[str]:
        return {row[0] for row in self._query("SELECT id FROM memories", ())}

    def import_keys(self) -> dict[str, tuple[str, ...]]:
        """What imports already applied: every memory id with its words and quote, and the keys
        of imported lines merged into another memory (their ``import-merged`` events, with no
        words), so that a re-run skips them."""
        merged = self._query("SELECT detail FROM memory_events WHERE event='import-merged'", ())
        keys: dict[str, tuple[str, ...]] = {row[0]: () for row in merged}
        keys.update((r[0], (r[1], r[2])) for r in self._query("SELECT id, text, quote FROM memories", ()))
        return keys

    def mark_used(self, memory_ids: Sequence[str], at: float) -> None:
        """Recalled now: bumps use counts (not a change of the memory, so no history event)."""
        if not memory_ids:
            return
        with self.write("could not record which memories were used") as writes:
            writes.touch(memory_ids, at)

    def _query(self, sql: str, params: Sequence[Any]) -> list[sqlite3.Row]:
        return self._select(sql, params, "could not read the memories")


def _owner_clause(agent: str, session_id: str | None, every_chat: bool) -> tuple[str, list[Any]]:
    """Memories visible to ``agent`` in chat ``session_id``: global ones, the agent's, the chat's."""
    if every_chat:
        return "(scope='global' OR agent=?)", [agent]
    return (
        "(scope='global' OR (scope='agent' AND agent=?) OR (scope='chat' AND agent=? AND session_id IS ?))",
        [agent, agent, session_id],
    )


def _memory(row: sqlite3.Row) -> Memory:
    return Memory(
        id=row["id"],
        text=row["text"],
        kind=row["kind"],
        scope=row["scope"],
        tier=row["tier"],
        status=row["status"],
        importance=row["importance"],
        agent=row["agent"],
        session_id=row["session_id"],
        provenance=Provenance(row["source_session"], row["source_message"], row["speaker"], row["quote"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        last_used_at=row["last_used_at"],
        use_count=row["use_count"],
        expires_at=row["expires_at"],
        superseded_by=row["superseded_by"],
        supersedes=row["supersedes"],
        seen_count=row["seen_count"],
    )


def _blob(vector: StoredVector | None) -> bytes | None:
    return None if vector is None else np.asarray(vector.vector, dtype=np.float32).tobytes()


def _vector(model: str | None, blob: bytes | None) -> StoredVector | None:
    if not model or not blob or len(blob) % 4:
        return None
    return StoredVector(model, np.frombuffer(blob, dtype=np.float32))
