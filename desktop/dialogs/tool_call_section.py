"""View Context's tool-call part: each call the reply made and how it ended (a call you denied
says so, in amber, rather than looking like a failure)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from desktop.models.reply_tool_calls import ReplyToolCallsModel
from desktop.models.tool_outcomes import ToolCallOutcome
from desktop.views.tables import row_table

__all__ = ["ToolCallSection"]

MIN_ROWS_SHOWN = 3


class ToolCallSection(QWidget):
    def __init__(self, calls: Sequence[ToolCallOutcome], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ReplyToolCallsModel(self)
        self.model.set_calls(calls)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        title = QLabel("Tool calls")
        title.setStyleSheet("font-size: 15px; font-weight: 600;")
        layout.addWidget(title)
        self.table = row_table(self.model, stretch=1)
        rows = max(1, self.model.rowCount())
        self.table.setMaximumHeight(40 + 26 * rows)
        # A few calls (a skill loaded, then its script run) show whole, not squeezed to a sliver
        # by the columns above; more scroll.
        self.table.setMinimumHeight(40 + 26 * min(rows, MIN_ROWS_SHOWN))
        layout.addWidget(self.table)
