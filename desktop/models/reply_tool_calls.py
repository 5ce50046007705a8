"""The tool calls one reply made, as a table for its View Context: the tool, its arguments, how
it ended (in the tone the chat shows it) and how long it took."""

from __future__ import annotations

import json
from collections.abc import Iterable
from textwrap import shorten
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from desktop.models._table import RowTableModel
from desktop.models.tool_outcomes import ToolCallOutcome, tone_of
from desktop.theme import colors

__all__ = ["ReplyToolCallsModel", "arguments_line"]


def arguments_line(arguments: dict[str, Any]) -> str:
    """``path: notes.md · pattern: *.md`` on one line, shortened; "(none)" without arguments."""
    parts = [
        f"{name}: {value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)}"
        for name, value in arguments.items()
    ]
    return shorten(" · ".join(parts), 80, placeholder=" …") if parts else "(none)"


class ReplyToolCallsModel(RowTableModel[ToolCallOutcome]):
    HEADERS = ("Tool", "Arguments", "Outcome", "Time")

    def set_calls(self, calls: Iterable[ToolCallOutcome]) -> None:
        self._reset_rows(calls)

    def cell_data(self, row: ToolCallOutcome, column: int, role: int) -> Any:
        record = row.record
        if role == Qt.ItemDataRole.DisplayRole:
            elapsed = "" if record.elapsed_seconds is None else f"{record.elapsed_seconds:.2f} s"
            name = f"{record.server}.{record.tool}" if record.server else record.tool
            return (name, arguments_line(dict(record.arguments)), row.status_text, elapsed)[column]
        if role == Qt.ItemDataRole.ForegroundRole and column == 2:
            palette = colors()
            tone = tone_of(row.status)
            return QColor(palette.error if tone == "error" else palette.warning) if tone != "normal" else None
        if role == Qt.ItemDataRole.ToolTipRole:
            told = shorten(record.result, 300, placeholder=" …") if record.result else ""
            return f"The model was told: {told}" if told else None
        return None
