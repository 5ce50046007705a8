"""Agent ▸ What Selection Learned…: the corrections selection learned for this agent, and
forgetting some or all of them. The store is read and written on the core thread."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from agent_core.context.learned import Correction, LearnedSelections
from desktop.bridge import CoreBridge
from desktop.models.learned import LearnedModel
from desktop.theme import colors
from desktop.views.tables import row_table
from desktop.views.window_geometry import fit_size

__all__ = ["LearnedDialog"]


class LearnedDialog(QDialog):
    def __init__(
        self, bridge: CoreBridge, store: LearnedSelections, agent_path: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.store = store
        self.agent_path = agent_path
        self.setWindowTitle("What selection learned")
        fit_size(self, QSize(900, 460))
        layout = QVBoxLayout(self)
        intro = QLabel(
            "When you add an agent-mode rule, reference or tool to a chat right after a message, "
            "selection learns the message needed it; when you remove one a reply used, that it did "
            "not. A later message much like that one gets the item (or not), and View Context says so."
        )
        intro.setWordWrap(True)
        intro.setStyleSheet(f"color: {colors().muted};")
        layout.addWidget(intro)
        self.model = LearnedModel(self)
        self.table = row_table(self.model, stretch=2)
        layout.addWidget(self.table, 1)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        buttons = QHBoxLayout()
        self.forget_item = QPushButton("Forget this item's corrections")
        self.forget_item.setToolTip("Forget every correction of the selected row's item")
        self.forget_item.clicked.connect(self._forget_selected_item)
        self.forget_all = QPushButton("Forget everything")
        self.forget_all.setToolTip("Selection goes back to what it chose before any correction")
        self.forget_all.clicked.connect(lambda: self._forget(None))
        close = QPushButton("Close")
        close.clicked.connect(self.accept)
        for button in (self.forget_item, self.forget_all, close):
            button.setAutoDefault(False)
            buttons.addWidget(button)
        buttons.insertStretch(2, 1)
        layout.addLayout(buttons)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update_buttons())
        self._update_buttons()
        self.refresh()

    def refresh(self) -> None:
        self.bridge.call(self.store.corrections, self.agent_path, on_result=self._show, on_error=self._error)

    def _show(self, corrections: list[Correction]) -> None:
        self.model.set_corrections(corrections)
        self.status.setText(
            f"{len(corrections)} correction(s)." if corrections else "Nothing learned yet for this agent."
        )
        self._update_buttons()

    def _error(self, error: BaseException) -> None:
        self.status.setText(f"Could not read or change what was learned: {error}")

    def _selected(self) -> Correction | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.correction_at(rows[0].row()) if rows else None

    def _update_buttons(self) -> None:
        self.forget_item.setEnabled(self._selected() is not None)
        self.forget_all.setEnabled(self.model.rowCount() > 0)

    def _forget_selected_item(self) -> None:
        correction = self._selected()
        if correction is not None:
            self._forget(correction)

    def _forget(self, correction: Correction | None) -> None:
        ref = correction.ref if correction is not None else None
        self.bridge.call(
            self.store.clear, self.agent_path, ref, on_result=lambda _: self.refresh(), on_error=self._error
        )
