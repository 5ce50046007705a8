"""Saved chats: sessions, messages with their RequestContext, tool calls, search, recovery.

Blocking SQLite calls: callers on an event loop or GUI thread run them with ``asyncio.to_thread``.
A lock serialises use of the one connection; other processes may read through WAL meanwhile.

One program writes to a chat at a time: every write takes or refreshes the chat's lease (a row
naming the program, its host and pid, and when it last wrote), and a write to a chat whose lease
another live program holds is refused, naming it. A lease is taken over once its program has
ended, or after LEASE_STALE_SECONDS without a write; :meth:`ChatStore.close` releases them.
"""

from __future__ import annotations

import logging
import os
import socket
import sqlite3
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from pydantic import TypeAdapter

from agent_core.context.items import ItemRef, RequestContext, SessionItem
from agent_core.errors import ContextDeskError, UserDataError
from agent_core.paths import user_dirs
from agent_core.redaction import redact_credentials
from agent_core.store.chat_state import AttachedResource, ChatOverrides
from agent_core.store.db import StoreError, connect, store_error
from agent_core.store.kept_results import kept_records
from agent_core.store.leases import LEASE_STALE_SECONDS, claim, held_by_another, this_program
from agent_core.store.records import (
    Approval,
    ChildLink,
    MessageRole,
    MessageStatus,
    SearchHit,
    StoredMessage,
    StoredSession,
    ToolCallRecord,
)
from agent_core.store.salvage import readable_rows
from agent_core.store.sent_requests import SentRequest

# The records are re-exported: they are what the store reads and writes.
__all__ = [
    "LEASE_STALE_SECONDS",
    "Approval",
    "ChatStore",
    "ChildLink",
    "MessageRole",
    "MessageStatus",
    "SearchHit",
    "StoredMessage",
    "StoredSession",
    "ToolCallRecord",
]

logger = logging.getLogger(__name__)

_T = TypeVar("_T")
_CONTEXT = TypeAdapter(RequestContext)
_ITEMS = TypeAdapter(tuple[SessionItem, ...])
_REFS = TypeAdapter(tuple[ItemRef, ...])
_CALLS = TypeAdapter(tuple[ToolCallRecord, ...])
_OVERRIDES = TypeAdapter(ChatOverrides)
_ATTACHED = TypeAdapter(tuple[AttachedResource, ...])
#: The exact requests kept per chat (its newest replies'); older replies say none was kept.
SENT_REQUESTS_KEPT = 50
_SENT = TypeAdapter(SentRequest)


class ChatStore:
    """All saved chats of this user, in one SQLite file."""

    def __init__(self, path: Path | None = None, *, busy_timeout: float = 10.0) -> None:
        self.path = path or user_dirs().database
        self._db = connect(self.path, busy_timeout=busy_timeout)
        self._lock = threading.RLock()
        self._closed = False
        # Set when a read met a damaged part of the file and returned only what it could read.
        self.damage: StoreError | None = None
        # Who writes through this store, as named to a second writer of the same chat.
        self.holder = f"{this_program()} (pid {os.getpid()})"
        self._host = socket.gethostname()

    @contextmanager
    def _reading(self, doing: str) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._closed:
                raise UserDataError("the chat store is closed: reopen the chat")
            try:
                yield self._db
            except sqlite3.IntegrityError:
                raise
            except sqlite3.DatabaseError as error:
                raise store_error(error, self.path, doing) from error

    def close(self) -> None:
        """Release this program's chat leases and close the database."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._db.execute(
                    "DELETE FROM chat_leases WHERE host = ? AND pid = ?", (self._host, os.getpid())
                )
            except sqlite3.DatabaseError as error:  # left behind, they are taken over when stale
                logger.warning("could not release the chat leases in %s: %s", self.path, error)
            self._db.close()

    # --- one writer per chat ------------------------------------------------------------------

    def acquire_lease(self, session_id: str) -> None:
        """Become the one program writing to this chat (every write does this too).

        Raises:
            StoreError: another program is writing to the chat (``problem == "in_use"``).
        """
        with self._transaction() as db:
            claim(db, session_id, self.holder, self._host)

    def release_lease(self, session_id: str) -> None:
        """Let other programs write to this chat (when it is closed here). Never raises: a lease
        left behind is taken over once stale."""
        try:
            with self._transaction() as db:
                db.execute(
                    "DELETE FROM chat_leases WHERE session_id = ? AND host = ? AND pid = ?",
                    (session_id, self._host, os.getpid()),
                )
        except UserDataError as error:
            logger.warning("could not release the lease on chat %s: %s", session_id, error)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._closed:
                raise UserDataError(
                    "the chat store was closed while a chat was still saving: reopen the chat"
                )
            try:
                self._db.execute("BEGIN IMMEDIATE")
                yield self._db
                self._db.execute("COMMIT")
            except sqlite3.IntegrityError:
                self._rollback()
                raise
            except sqlite3.DatabaseError as error:
                self._rollback()
                raise store_error(error, self.path, "could not save the chat") from error
            except BaseException:
                self._rollback()
                raise

    def _rollback(self) -> None:
        if self._db.in_transaction:
            # SQLite may have rolled back by itself (after a full disk or an I/O error).
            with suppress(sqlite3.DatabaseError):
                self._db.execute("ROLLBACK")

    # --- sessions -----------------------------------------------------------------------------

    def create_session(
        self,
        *,
        agent_path: str = "",
        title: str = "",
        context_items: tuple[SessionItem, ...] = (),
        overrides: ChatOverrides | None = None,
        parent: ChildLink | None = None,
    ) -> StoredSession:
        """A new chat; with ``parent``, a sub-agent's chat (not listed among the user's chats)."""
        now = time.time()
        session = StoredSession(
            id=uuid.uuid4().hex,
            title=title,
            agent_path=agent_path,
            created_at=now,
            updated_at=now,
            context_items=context_items,
            overrides=overrides or ChatOverrides(),
            parent=parent,
        )
        with self._transaction() as db:
            db.execute(
                "INSERT INTO sessions(id, title, agent_path, created_at, updated_at, context_items, overrides, "
                "parent_session_id, parent_message_id, parent_call_id, subagent) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session.id,
                    title,
                    agent_path,
                    now,
                    now,
                    _ITEMS.dump_json(context_items).decode(),
                    _OVERRIDES.dump_json(session.overrides).decode(),
                    parent.session_id if parent else None,
                    parent.message_id if parent else None,
                    parent.call_id if parent else None,
                    parent.subagent if parent else None,
                ),
            )
            claim(db, session.id, self.holder, self._host)
        return session

    def session(self, session_id: str) -> StoredSession | None:
        try:
            with self._reading("could not read the saved chat") as db:
                row = db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        except StoreError as error:
            if error.problem != "damaged":
                raise
            return next((s for s in self._salvaged_sessions(error) if s.id == session_id), None)
        return None if row is None else _session(row)

    def sessions(self) -> list[StoredSession]:
        """The user's chats (not sub-agents' chats), most recently used first (on a damaged
        file, those that can be read, with :attr:`damage` set)."""
        try:
            with self._reading("could not read the saved chats") as db:
                rows = db.execute(
                    "SELECT * FROM sessions WHERE parent_session_id IS NULL ORDER BY updated_at DESC, rowid DESC"
                ).fetchall()
        except StoreError as error:
            if error.problem != "damaged":
                raise
            found = [s for s in self._salvaged_sessions(error) if s.parent is None]
            return sorted(found, key=lambda s: s.updated_at, reverse=True)
        return [_session(row) for row in rows]

    def children(self, session_id: str) -> list[StoredSession]:
        """The sub-agents' chats a chat started, oldest first."""
        with self._reading("could not read the sub-agents' chats") as db:
            rows = db.execute(
                "SELECT * FROM sessions WHERE parent_session_id = ? ORDER BY created_at, rowid", (session_id,)
            ).fetchall()
        return [_session(row) for row in rows]

    def _salvaged_sessions(self, error: StoreError) -> list[StoredSession]:
        self.damage = error
        with self._reading("could not read the saved chats") as db:
            return [s for s in (_or_none(_session, row) for row in readable_rows(db, "sessions")) if s]

    def update_session(
        self,
        session_id: str,
        *,
        title: str | None = None,
        context_items: tuple[SessionItem, ...] | None = None,
        excluded_items: tuple[ItemRef, ...] | None = None,
        overrides: ChatOverrides | None = None,
        allowed_tools: tuple[ItemRef, ...] | None = None,
        attached_resources: tuple[AttachedResource, ...] | None = None,
    ) -> None:
        """Change a chat's title, items or settings. ``updated_at`` stays: it is the chat's last
        activity (a message), so renaming a chat does not move it up the list of chats."""
        sets: list[str] = []
        values: list[Any] = []
        if title is not None:
            sets.append("title = ?")
            values.append(title)
        if context_items is not None:
            sets.append("context_items = ?")
            values.append(_ITEMS.dump_json(context_items).decode())
        if excluded_items is not None:
            sets.append("excluded_items = ?")
            values.append(_REFS.dump_json(excluded_items).decode())
        if overrides is not None:
            sets.append("overrides = ?")
            values.append(_OVERRIDES.dump_json(overrides).decode())
        if allowed_tools is not None:
            sets.append("allowed_tools = ?")
            values.append(_REFS.dump_json(allowed_tools).decode())
        if attached_resources is not None:
            sets.append("attached_resources = ?")
            values.append(_ATTACHED.dump_json(attached_resources).decode())
        if not sets:
            return
        with self._transaction() as db:
            claim(db, session_id, self.holder, self._host)
            db.execute(f"UPDATE sessions SET {', '.join(sets)} WHERE id = ?", (*values, session_id))

    def delete_session(self, session_id: str) -> None:
        """Delete a chat with its messages and its sub-agents' chats (theirs too, all the way down)."""
        with self._transaction() as db:
            claim(db, session_id, self.holder, self._host)
            doomed, frontier = [session_id], [session_id]
            while frontier:
                marks = ",".join("?" * len(frontier))
                frontier = [
                    row[0]
                    for row in db.execute(
                        f"SELECT id FROM sessions WHERE parent_session_id IN ({marks})", frontier
                    )
                ]
                doomed += frontier
            for doomed_id in reversed(doomed):
                db.execute("DELETE FROM chat_leases WHERE session_id = ?", (doomed_id,))
                db.execute("DELETE FROM messages WHERE session_id = ?", (doomed_id,))
                db.execute("DELETE FROM sessions WHERE id = ?", (doomed_id,))

    # --- messages -----------------------------------------------------------------------------

    def add_message(
        self,
        session_id: str,
        role: MessageRole,
        content: str,
        *,
        status: MessageStatus = "complete",
        request_context: RequestContext | None = None,
        tool_calls: tuple[ToolCallRecord, ...] = (),
        tool_call_id: str | None = None,
        error: str | None = None,
        covers_until: int | None = None,
    ) -> StoredMessage:
        """Append a message; committed before this returns, so a crash after it loses nothing.
        Credentials quoted in an error (a provider URL's password, a key) are hidden before saving."""
        now = time.time()
        error = None if error is None else redact_credentials(error)
        if role == "error":
            content = redact_credentials(content)
        with self._transaction() as db:
            claim(db, session_id, self.holder, self._host)
            cursor = db.execute(
                "INSERT INTO messages(session_id, role, content, status, created_at, request_context, tool_calls, "
                "tool_call_id, error, covers_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    role,
                    content,
                    status,
                    now,
                    None if request_context is None else _CONTEXT.dump_json(request_context).decode(),
                    _CALLS.dump_json(kept_records(tool_calls)).decode(),
                    tool_call_id,
                    error,
                    covers_until,
                ),
            )
            db.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now, session_id))
        message_id = cursor.lastrowid
        assert message_id is not None
        return StoredMessage(
            id=message_id,
            session_id=session_id,
            role=role,
            content=content,
            status=status,
            created_at=now,
            request_context=request_context,
            tool_calls=tool_calls,
            tool_call_id=tool_call_id,
            error=error,
            covers_until=covers_until,
        )

    def update_message(
        self,
        message: StoredMessage,
        *,
        content: str | None = None,
        status: MessageStatus | None = None,
        request_context: RequestContext | None = None,
        tool_calls: tuple[ToolCallRecord, ...] | None = None,
        error: str | None = None,
    ) -> StoredMessage:
        updated = replace(
            message,
            content=message.content if content is None else content,
            status=message.status if status is None else status,
            request_context=message.request_context if request_context is None else request_context,
            tool_calls=message.tool_calls if tool_calls is None else tool_calls,
            error=message.error if error is None else redact_credentials(error),
        )
        with self._transaction() as db:
            claim(db, message.session_id, self.holder, self._host)
            db.execute(
                "UPDATE messages SET content = ?, status = ?, request_context = ?, tool_calls = ?, error = ? "
                "WHERE id = ?",
                (
                    updated.content,
                    updated.status,
                    None
                    if updated.request_context is None
                    else _CONTEXT.dump_json(updated.request_context).decode(),
                    _CALLS.dump_json(kept_records(updated.tool_calls)).decode(),
                    updated.error,
                    message.id,
                ),
            )
        return updated

    def save_sent_request(self, message: StoredMessage, request: SentRequest) -> None:
        """Keep the exact request the model turn of ``message`` sent (see ``sent_requests``: it
        comes masked and bounded); replaces one kept before for the same message.

        Raises:
            StoreError: the database could not be written.
        """
        # Compressed (a request is mostly prompt text repeated turn after turn: ~8x smaller), and
        # only a chat's newest SENT_REQUESTS_KEPT are kept, so a long chat with a large window does
        # not grow the database by megabytes nobody reads.
        packed = zlib.compress(_SENT.dump_json(request), 6)
        with self._transaction() as db:
            claim(db, message.session_id, self.holder, self._host)
            db.execute(
                "INSERT OR REPLACE INTO sent_requests(message_id, request) VALUES (?, ?)",
                (message.id, packed),
            )
            db.execute(
                "DELETE FROM sent_requests WHERE message_id IN ("
                " SELECT s.message_id FROM sent_requests s JOIN messages m ON m.id = s.message_id"
                " WHERE m.session_id = ? ORDER BY s.message_id DESC LIMIT -1 OFFSET ?)",
                (message.session_id, SENT_REQUESTS_KEPT),
            )

    def sent_request(self, message_id: int) -> SentRequest | None:
        """The exact request kept for the reply ``message_id``; None when none was kept (a reply
        saved before requests were kept, or one that never reached the model).

        Raises:
            StoreError: the database could not be read.
        """
        with self._reading("could not read the request the reply sent") as db:
            row = db.execute(
                "SELECT request FROM sent_requests WHERE message_id = ?", (message_id,)
            ).fetchone()
        if row is None:
            return None
        stored = row["request"]
        try:
            data = zlib.decompress(stored) if isinstance(stored, bytes) else stored
        except zlib.error as error:
            raise StoreError(f"the kept request of reply {message_id} is damaged ({error})") from error
        return _SENT.validate_json(data)

    def replace_from(self, message: StoredMessage) -> None:
        """Mark ``message`` and every later message of its chat as replaced (kept, readable, no
        longer sent): what regenerating an answer or editing a message does to what it replaces.

        Raises:
            StoreError: the database could not be written.
        """
        with self._transaction() as db:
            claim(db, message.session_id, self.holder, self._host)
            db.execute(
                "UPDATE messages SET replaced = 1 WHERE session_id = ? AND id >= ? AND role != 'summary'",
                (message.session_id, message.id),
            )

    def delete_summary(self, message: StoredMessage) -> None:
        """Undo a compaction: its summary goes, and the messages it covered count again (they
        were never deleted). Only a summary can be deleted this way.

        Raises:
            ContextDeskError: ``message`` is not a compaction summary.
            StoreError: the database could not be written.
        """
        if message.role != "summary":
            raise ContextDeskError("only a compaction summary can be undone")
        with self._transaction() as db:
            claim(db, message.session_id, self.holder, self._host)
            db.execute("DELETE FROM messages WHERE id = ? AND role = 'summary'", (message.id,))

    def messages(
        self, session_id: str, *, with_contexts: bool = True, current_only: bool = False
    ) -> list[StoredMessage]:
        """The chat's messages in order; ``with_contexts=False`` skips reading RequestContexts
        (building a prompt needs none, and long chats have many); ``current_only`` leaves out
        the messages a regenerated answer or an edit replaced (what the model is sent)."""
        columns = (
            "*"
            if with_contexts
            else (
                "id, session_id, role, content, status, created_at, NULL AS request_context, tool_calls, "
                "tool_call_id, error, covers_until, replaced"
            )
        )
        if current_only:
            return [m for m in self.messages(session_id, with_contexts=with_contexts) if not m.replaced]
        try:
            with self._reading("could not read the chat's messages") as db:
                rows = db.execute(
                    f"SELECT {columns} FROM messages WHERE session_id = ? ORDER BY id", (session_id,)
                ).fetchall()
        except StoreError as error:
            if error.problem != "damaged":
                raise
            # Keep what can be read: the messages outside the damaged part of the file.
            self.damage = error
            with self._reading("could not read the chat's messages") as db:
                found = (
                    _or_none(_message, row)
                    for row in readable_rows(db, "messages")
                    if row["session_id"] == session_id
                )
                return [m for m in found if m is not None]
        return [_message(row) for row in rows]

    def recover_interrupted(self) -> int:
        """Mark replies left 'streaming' by a crash or kill as 'partial'; returns how many.

        Raises:
            StoreError: the database cannot be written (damaged, read-only, locked, disk full).
        """
        with self._transaction() as db:
            now = time.time()
            busy = [
                lease["session_id"]
                for lease in db.execute("SELECT * FROM chat_leases")
                if held_by_another(lease, self._host, now)
            ]
            # A reply another program is streaming right now is not interrupted.
            cursor = db.execute(
                "UPDATE messages SET status = 'partial' WHERE status = 'streaming' "
                f"AND session_id NOT IN ({', '.join('?' for _ in busy)})",
                busy,
            )
        return cursor.rowcount

    def search(self, text: str, limit: int = 50) -> list[SearchHit]:
        """Full-text search over all messages; words are matched as typed (no query syntax)."""
        words = [word.replace('"', '""') for word in text.split()]
        if not words:
            return []
        query = " ".join(f'"{word}"*' for word in words)
        with self._reading("could not search the saved chats") as db:
            rows = db.execute(
                "SELECT m.id, m.session_id, m.role, s.title, "
                "snippet(messages_fts, 0, '[', ']', '…', 12) AS snippet "
                "FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid "
                "JOIN sessions s ON s.id = m.session_id "
                "WHERE messages_fts MATCH ? ORDER BY rank LIMIT ?",
                (query, limit),
            ).fetchall()
        return [
            SearchHit(
                session_id=row["session_id"],
                session_title=row["title"],
                message_id=row["id"],
                role=row["role"],
                snippet=row["snippet"],
            )
            for row in rows
        ]


def _or_none(read: Callable[[sqlite3.Row], _T], row: sqlite3.Row) -> _T | None:
    """A salvaged row, or None when its stored JSON is damaged too."""
    try:
        return read(row)
    except ValueError:  # pydantic's ValidationError is one
        return None


def _session(row: sqlite3.Row) -> StoredSession:
    return StoredSession(
        id=row["id"],
        title=row["title"],
        agent_path=row["agent_path"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        context_items=_ITEMS.validate_json(row["context_items"]),
        excluded_items=_REFS.validate_json(row["excluded_items"]),
        overrides=_OVERRIDES.validate_json(row["overrides"]),
        allowed_tools=_REFS.validate_json(row["allowed_tools"]),
        attached_resources=_ATTACHED.validate_json(row["attached_resources"]),
        parent=None
        if row["parent_session_id"] is None
        else ChildLink(
            row["parent_session_id"],
            row["parent_message_id"],
            row["parent_call_id"] or "",
            row["subagent"] or "",
        ),
    )


def _message(row: sqlite3.Row) -> StoredMessage:
    context = row["request_context"]
    return StoredMessage(
        id=row["id"],
        session_id=row["session_id"],
        role=row["role"],
        content=row["content"],
        status=row["status"],
        created_at=row["created_at"],
        request_context=None if context is None else _CONTEXT.validate_json(context),
        tool_calls=_CALLS.validate_json(row["tool_calls"]),
        tool_call_id=row["tool_call_id"],
        error=row["error"],
        covers_until=row["covers_until"],
        replaced=bool(row["replaced"]),
    )
