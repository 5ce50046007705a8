"""What selection learned from the user's corrections, as a table (newest first)."""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import Qt

from agent_core.context.learned import Correction
from desktop.models._table import RowTableModel

__all__ = ["LearnedModel"]


class LearnedModel(RowTableModel[Correction]):
    HEADERS = ("When", "Item", "For the message", "Learned")

    def set_corrections(self, corrections: list[Correction]) -> None:
        self._reset_rows(sorted(corrections, key=lambda c: (c.created_at, c.id), reverse=True))

    def correction_at(self, row: int) -> Correction | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def cell_data(self, row: Correction, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            message = " ".join(row.message.split())
            return (
                time.strftime("%Y-%m-%d %H:%M", time.localtime(row.created_at)),
                row.ref.label() if row.ref.type == "tool" else f"{row.ref.type} {row.ref.name}",
                message if len(message) <= 90 else message[:89] + "…",
                "needed (you added it)" if row.added else "not needed (you removed it)",
            )[column]
        if role == Qt.ItemDataRole.ToolTipRole and column == 2:
            return row.message
        return None
