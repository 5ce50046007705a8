"""The chat store's branches: an edit sets the edited message and what followed it aside (kept,
not sent), and a switch brings a set-aside branch back in place of the one shown, each in one
transaction. Which messages form a branch is told by the numbers they were set aside with: the
messages an edit or a switch set aside together are one branch, exactly as it was left."""

from __future__ import annotations

import sqlite3

from agent_core.store._chat_base import ChatStoreBase
from agent_core.store.records import StoredMessage

__all__ = ["ChatBranches", "conversation_tip"]


def conversation_tip(db: sqlite3.Connection, session_id: str) -> int:
    """The id of the last message of the chat's conversation (not replaced, not a summary): the
    parent of a message added now; 0 in a chat with none."""
    row = db.execute(
        "SELECT max(id) FROM messages WHERE session_id = ? AND replaced = 0 AND role != 'summary'",
        (session_id,),
    ).fetchone()
    return int(row[0] or 0)


def _set_aside(db: sqlite3.Connection, message: StoredMessage) -> None:
    """``message`` and the conversation after it leave it, together, under a new number."""
    (number,) = db.execute(
        "SELECT coalesce(max(aside), 0) + 1 FROM messages WHERE session_id = ?", (message.session_id,)
    ).fetchone()
    db.execute(
        "UPDATE messages SET replaced = 1, aside = ? "
        "WHERE session_id = ? AND id >= ? AND replaced = 0 AND role != 'summary'",
        (number, message.session_id, message.id),
    )


class ChatBranches(ChatStoreBase):
    def set_aside_from(self, message: StoredMessage) -> None:
        """Set ``message`` and every later message of its conversation aside (kept, no longer
        sent, brought back by :meth:`switch_branch`): what editing ``message`` does.

        Raises:
            StoreError: the database could not be written (nothing changed).
        """
        with self._writing(message.session_id) as db:
            _set_aside(db, message)

    def switch_branch(self, shown: StoredMessage, wanted: StoredMessage) -> None:
        """Show the set-aside branch that starts at ``wanted`` in place of the one that starts at
        ``shown`` (two versions of one message): ``shown``'s is set aside, ``wanted``'s comes back
        as it was left. One transaction: a failure changes nothing.

        Raises:
            StoreError: the database could not be written (nothing changed).
        """
        with self._writing(shown.session_id) as db:
            _set_aside(db, shown)
            db.execute(
                "UPDATE messages SET replaced = 0, aside = 0 WHERE session_id = ? AND aside = ?",
                (wanted.session_id, wanted.aside),
            )
