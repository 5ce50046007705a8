"""Saved chats, newest first, with rename through ``setData`` and a search mode with snippets."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import IntEnum
from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal

from agent_core.store.chats import SearchHit, StoredSession
from desktop.models._table import Index, RowTableModel

__all__ = ["Column", "Role", "SessionListModel", "SessionRow", "rows_for_search"]

UNTITLED = "New chat"


class Column(IntEnum):
    TITLE = 0
    UPDATED = 1


class Role(IntEnum):
    SESSION_ID = Qt.ItemDataRole.UserRole + 1
    UPDATED_AT = Qt.ItemDataRole.UserRole + 2
    SNIPPET = Qt.ItemDataRole.UserRole + 3
    TITLE = Qt.ItemDataRole.UserRole + 4


@dataclass(frozen=True)
class SessionRow:
    id: str
    title: str
    updated_at: float
    snippet: str = ""  # the matching text, in search mode

    @classmethod
    def of(cls, session: StoredSession, snippet: str = "") -> SessionRow:
        return cls(session.id, session.title, session.updated_at, snippet)


def rows_for_search(
    text: str, sessions: Sequence[StoredSession], hits: Sequence[SearchHit]
) -> list[SessionRow]:
    """Chats whose title contains ``text`` or whose messages match it, newest first, one row each."""
    needle = text.strip().lower()
    snippets: dict[str, str] = {}
    for hit in hits:
        snippets.setdefault(hit.session_id, hit.snippet)
    return [
        SessionRow.of(session, snippets.get(session.id, ""))
        for session in sessions
        if session.id in snippets or (needle and needle in session.title.lower())
    ]


def relative_time(timestamp: float, now: float | None = None) -> str:
    now = time.time() if now is None else now
    seconds = max(0.0, now - timestamp)
    if seconds < 60:
        return "now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h"
    if seconds < 7 * 86400:
        return f"{int(seconds // 86400)} d"
    return time.strftime("%d %b", time.localtime(timestamp))


class SessionListModel(RowTableModel[SessionRow]):
    """Titles are editable; an edit emits :attr:`rename_requested` and shows the new title at once."""

    HEADERS = ("Chat", "Updated")

    rename_requested = Signal(str, str)  # session id, new title

    # --- changing -----------------------------------------------------------------------------

    def set_rows(self, rows: Sequence[SessionRow]) -> None:
        self._reset_rows(rows)

    def upsert(self, row: SessionRow) -> None:
        """Add a chat at the top, or move it there with its new title and time."""
        existing = self.row_of(row.id)
        if existing is not None:
            if existing == 0:
                self._rows[0] = row
                self.dataChanged.emit(self.index(0, 0), self.index(0, len(Column) - 1), [])
                return
            self.beginRemoveRows(QModelIndex(), existing, existing)
            del self._rows[existing]
            self.endRemoveRows()
        self.beginInsertRows(QModelIndex(), 0, 0)
        self._rows.insert(0, row)
        self.endInsertRows()

    def remove(self, session_id: str) -> tuple[int, SessionRow] | None:
        """Remove a chat's row; returns where it was and what, so an undo can put it back."""
        row = self.row_of(session_id)
        if row is None:
            return None
        self.beginRemoveRows(QModelIndex(), row, row)
        removed = self._rows.pop(row)
        self.endRemoveRows()
        return row, removed

    def restore(self, position: int, row: SessionRow) -> None:
        position = max(0, min(position, len(self._rows)))
        self.beginInsertRows(QModelIndex(), position, position)
        self._rows.insert(position, row)
        self.endInsertRows()

    def set_title(self, session_id: str, title: str) -> None:
        row = self.row_of(session_id)
        if row is None:
            return
        self._rows[row] = replace(self._rows[row], title=title)
        self.dataChanged.emit(self.index(row, Column.TITLE), self.index(row, Column.TITLE), [])

    # --- reading ------------------------------------------------------------------------------

    def row_of(self, session_id: str) -> int | None:
        return next((i for i, r in enumerate(self._rows) if r.id == session_id), None)

    def cell_data(self, row: SessionRow, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if column == Column.TITLE:
                return row.title or UNTITLED
            return relative_time(row.updated_at)
        if role == Qt.ItemDataRole.EditRole:
            return row.title if column == Column.TITLE else None
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.snippet.replace("[", "").replace("]", "") if row.snippet else (row.title or UNTITLED)
        by_role: dict[int, object] = {
            Role.SESSION_ID: row.id,
            Role.UPDATED_AT: row.updated_at,
            Role.SNIPPET: row.snippet,
            Role.TITLE: row.title,
        }
        return by_role.get(role)

    def flags(self, index: Index) -> Qt.ItemFlag:
        flags = super().flags(index)
        if index.isValid() and index.column() == Column.TITLE:
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid() or index.column() != Column.TITLE:
            return False
        title = " ".join(str(value).split())
        if not title:
            return False
        row = self._rows[index.row()]
        if title == row.title:
            return True
        self._rows[index.row()] = replace(row, title=title)
        self.dataChanged.emit(index, index, [Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole])
        self.rename_requested.emit(row.id, title)
        return True
