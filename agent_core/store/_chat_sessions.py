"""The chat store's sessions: creating, listing (a damaged file's readable ones too), changing and
deleting chats, a sub-agent's chats with their parent's."""

from __future__ import annotations

import time
import uuid
from typing import Any

from agent_core.context.items import ItemRef, SessionItem
from agent_core.database.errors import StoreError
from agent_core.store._chat_base import ChatStoreBase
from agent_core.store._chat_rows import ATTACHED, ITEMS, OVERRIDES, REFS, or_none, session_of
from agent_core.store.chat_state import AttachedResource, ChatOverrides
from agent_core.store.records import ChildLink, StoredSession
from agent_core.store.salvage import readable_rows

__all__ = ["ChatSessions"]


class ChatSessions(ChatStoreBase):
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
        with self._saving() as db:
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
                    ITEMS.dump_json(context_items).decode(),
                    OVERRIDES.dump_json(session.overrides).decode(),
                    parent.session_id if parent else None,
                    parent.message_id if parent else None,
                    parent.call_id if parent else None,
                    parent.subagent if parent else None,
                ),
            )
            self._claim(db, session.id)
        return session

    def session(self, session_id: str) -> StoredSession | None:
        try:
            with self._reading("could not read the saved chat") as db:
                row = db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        except StoreError as error:
            if error.problem != "damaged":
                raise
            return next((s for s in self._salvaged_sessions(error) if s.id == session_id), None)
        return None if row is None else session_of(row)

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
        return [session_of(row) for row in rows]

    def children(self, session_id: str) -> list[StoredSession]:
        """The sub-agents' chats a chat started, oldest first."""
        with self._reading("could not read the sub-agents' chats") as db:
            rows = db.execute(
                "SELECT * FROM sessions WHERE parent_session_id = ? ORDER BY created_at, rowid", (session_id,)
            ).fetchall()
        return [session_of(row) for row in rows]

    def _salvaged_sessions(self, error: StoreError) -> list[StoredSession]:
        self.damage = error
        with self._reading("could not read the saved chats") as db:
            return [s for s in (or_none(session_of, row) for row in readable_rows(db, "sessions")) if s]

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
            values.append(ITEMS.dump_json(context_items).decode())
        if excluded_items is not None:
            sets.append("excluded_items = ?")
            values.append(REFS.dump_json(excluded_items).decode())
        if overrides is not None:
            sets.append("overrides = ?")
            values.append(OVERRIDES.dump_json(overrides).decode())
        if allowed_tools is not None:
            sets.append("allowed_tools = ?")
            values.append(REFS.dump_json(allowed_tools).decode())
        if attached_resources is not None:
            sets.append("attached_resources = ?")
            values.append(ATTACHED.dump_json(attached_resources).decode())
        if not sets:
            return
        with self._writing(session_id) as db:
            db.execute(f"UPDATE sessions SET {', '.join(sets)} WHERE id = ?", (*values, session_id))

    def delete_session(self, session_id: str) -> None:
        """Delete a chat with its messages and its sub-agents' chats (theirs too, all the way down)."""
        with self._writing(session_id) as db:
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
