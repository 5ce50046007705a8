"""The chat store's full-text search over every message (FTS5)."""

from __future__ import annotations

from agent_core.store._chat_base import ChatStoreBase
from agent_core.store.records import SearchHit

__all__ = ["ChatSearch"]


class ChatSearch(ChatStoreBase):
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
