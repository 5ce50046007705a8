"""The memories of the open agent, as a table (tested without a view)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from enum import IntEnum
from typing import Any

from PySide6.QtCore import Qt

from agent_core.memory.records import Memory
from desktop.models._table import RowTableModel

__all__ = ["MemoriesModel", "MemoryColumn"]


class MemoryColumn(IntEnum):
    TEXT = 0
    KIND = 1
    SCOPE = 2
    STATUS = 3
    IMPORTANCE = 4
    USED = 5


STATUS_LABELS = {
    "active": "Active",
    "proposed": "Proposed",
    "superseded": "Superseded",
    "expired": "Expired",
    "rejected": "Rejected",
    "forgotten": "Forgotten",
}


class MemoriesModel(RowTableModel[Memory]):
    """One row per memory: its words, kind, scope, status (pinned shows as such), importance, use."""

    HEADERS = ("Memory", "Kind", "Scope", "Status", "Importance", "Used")

    def set_memories(self, memories: Iterable[Memory]) -> None:
        self._reset_rows(memories)

    def memories(self) -> list[Memory]:
        return list(self._rows)

    def memory_at(self, row: int) -> Memory | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def cell_data(self, row: Memory, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if column == MemoryColumn.TEXT:
                return row.text
            if column == MemoryColumn.KIND:
                return row.kind
            if column == MemoryColumn.SCOPE:
                return row.scope
            if column == MemoryColumn.STATUS:
                label = STATUS_LABELS.get(row.status, row.status)
                return f"{label} · pinned" if row.tier == "pinned" else label
            if column == MemoryColumn.IMPORTANCE:
                return str(row.importance)
            if column == MemoryColumn.USED:
                return f"{row.use_count}× · {_ago(row.last_used_at)}" if row.use_count else "never"
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            source = row.provenance
            said = (
                f'\nFrom: "{source.quote}" ({source.speaker})'
                if source.quote and source.quote != row.text
                else ""
            )
            replaced = f"\nReplaced by {row.superseded_by}" if row.superseded_by else ""
            return f"{row.text}\n{row.id} · {row.tier} · importance {row.importance}{said}{replaced}"
        if role == Qt.ItemDataRole.UserRole:
            return row.id
        return None


def _ago(moment: float | None) -> str:
    if moment is None:
        return "never"
    days = (time.time() - moment) / 86400
    return "today" if days < 1 else f"{int(days)} d ago"
