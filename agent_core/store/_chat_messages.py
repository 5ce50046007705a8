"""The chat store's messages: appending and changing them (each committed before the call
returns), replacing answers, undoing a compaction, reading a chat (a damaged file's readable
messages too), and marking replies a crash left streaming."""

from __future__ import annotations

import time
from dataclasses import replace

from agent_core.context.items import RequestContext
from agent_core.database.errors import StoreError
from agent_core.errors import ContextDeskError
from agent_core.redaction import redact_credentials
from agent_core.store._chat_base import ChatStoreBase
from agent_core.store._chat_branches import conversation_tip
from agent_core.store._chat_rows import CALLS, CONTEXT, message_of, or_none
from agent_core.store.kept_results import kept_records
from agent_core.store.leases import held_by_another
from agent_core.store.records import MessageRole, MessageStatus, StoredMessage, ToolCallRecord
from agent_core.store.salvage import readable_rows

__all__ = ["ChatMessages"]


class ChatMessages(ChatStoreBase):
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
        with self._writing(session_id) as db:
            parent = None if role == "summary" else conversation_tip(db, session_id)
            cursor = db.execute(
                "INSERT INTO messages(session_id, role, content, status, created_at, request_context, tool_calls, "
                "tool_call_id, error, covers_until, parent_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    role,
                    content,
                    status,
                    now,
                    None if request_context is None else CONTEXT.dump_json(request_context).decode(),
                    CALLS.dump_json(kept_records(tool_calls)).decode(),
                    tool_call_id,
                    error,
                    covers_until,
                    parent,
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
            parent_id=parent,
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
        with self._writing(message.session_id) as db:
            db.execute(
                "UPDATE messages SET content = ?, status = ?, request_context = ?, tool_calls = ?, error = ? "
                "WHERE id = ?",
                (
                    updated.content,
                    updated.status,
                    None
                    if updated.request_context is None
                    else CONTEXT.dump_json(updated.request_context).decode(),
                    CALLS.dump_json(kept_records(updated.tool_calls)).decode(),
                    updated.error,
                    message.id,
                ),
            )
        return updated

    def replace_from(self, message: StoredMessage) -> None:
        """Mark ``message`` and every later message of its chat as replaced (kept, readable, no
        longer sent): what regenerating an answer or editing a message does to what it replaces.

        Raises:
            StoreError: the database could not be written.
        """
        with self._writing(message.session_id) as db:
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
        with self._writing(message.session_id) as db:
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
                "tool_call_id, error, covers_until, replaced, parent_id, aside"
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
                    or_none(message_of, row)
                    for row in readable_rows(db, "messages")
                    if row["session_id"] == session_id
                )
                return [m for m in found if m is not None]
        return [message_of(row) for row in rows]

    def recover_interrupted(self) -> int:
        """Mark replies left 'streaming' by a crash or kill as 'partial'; returns how many.

        Raises:
            StoreError: the database cannot be written (damaged, read-only, locked, disk full).
        """
        with self._saving() as db:
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
