"""The Memories tab: the open agent's memories, to search, filter (status, scope, tier), accept,
reject, edit, pin, forget and restore, with each one's history. Every change runs off the GUI
thread; the table refreshes when it is done."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from agent_core.memory.book import MemoryBook
from agent_core.memory.recall import pins_over_budget_warning
from agent_core.memory.records import SCOPES, TIERS, Memory
from agent_core.workspace import Workspace
from desktop.bridge import CoreBridge
from desktop.models.memories import MemoriesModel, MemoryColumn

__all__ = ["MemoriesPanel"]

FILTERS: tuple[tuple[str, tuple[str, ...] | None], ...] = (
    ("Active and proposed", ("active", "proposed")),
    ("Forgotten", ("forgotten",)),
    ("Superseded and expired", ("superseded", "expired")),
    ("Rejected", ("rejected",)),
    ("All", None),
)


#: Below this table width the memories' words come first (see resizeEvent).
WIDE_ENOUGH_FOR_EVERY_COLUMN = 600


class MemoriesPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge: CoreBridge | None = None
        self.workspace: Workspace | None = None
        self.model = MemoriesModel(self)
        self._request = 0  # the newest refresh; older results are dropped
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        filters = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search memories")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda _text: self.refresh())
        self.status_filter = QComboBox()
        for label, _ in FILTERS:
            self.status_filter.addItem(label)
        self.status_filter.currentIndexChanged.connect(lambda _index: self.refresh())
        self.scope_filter = QComboBox()
        self.tier_filter = QComboBox()
        for combo, label, values in (
            (self.scope_filter, "Every scope", SCOPES),
            (self.tier_filter, "Every tier", TIERS),
        ):
            combo.addItem(label, None)
            for value in values:
                combo.addItem(value.capitalize(), value)
            combo.currentIndexChanged.connect(lambda _index: self.refresh())
        self.scope_filter.setToolTip("Global: every agent; Agent: this agent; Chat: one chat")
        self.tier_filter.setToolTip(
            "Pinned: always recalled; Long: kept; Short: expires when unused; Working: one chat"
        )
        # Two rows each for the filters and the buttons: the side panel must stay narrow, so the
        # filters may show their choice cut short rather than widen it.
        for combo in (self.status_filter, self.scope_filter, self.tier_filter):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(6)
        layout.addWidget(self.search)
        filters.addWidget(self.status_filter, 1)
        filters.addWidget(self.scope_filter)
        filters.addWidget(self.tier_filter)
        layout.addLayout(filters)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(MemoryColumn.TEXT, QHeaderView.ResizeMode.Stretch)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._on_selected())
        layout.addWidget(self.table, 1)
        buttons = QHBoxLayout()
        self.accept_button = QPushButton("Accept")
        self.reject_button = QPushButton("Reject")
        self.edit_button = QPushButton("Edit…")
        self.pin_button = QPushButton("Pin")
        self.forget_button = QPushButton("Forget")
        self.restore_button = QPushButton("Restore")
        self.history_button = QPushButton("History")
        self.accept_button.clicked.connect(
            lambda: self._change(lambda book, m: book.accept(m.id), "Accepted")
        )
        self.reject_button.clicked.connect(
            lambda: self._change(lambda book, m: book.reject(m.id), "Rejected")
        )
        self.edit_button.clicked.connect(self._start_editing)
        self.pin_button.clicked.connect(
            lambda: self._change(lambda book, m: book.pin(m.id, m.tier != "pinned"), "Pinned / unpinned")
        )
        self.forget_button.clicked.connect(
            lambda: self._change(lambda book, m: book.forget(m.id), "Forgotten")
        )
        self.restore_button.clicked.connect(
            lambda: self._change(lambda book, m: book.restore(m.id), "Restored")
        )
        self.history_button.clicked.connect(self._show_history)
        for button in (self.accept_button, self.reject_button, self.edit_button, self.pin_button):
            buttons.addWidget(button)
        more_buttons = QHBoxLayout()
        for button in (self.forget_button, self.restore_button, self.history_button):
            more_buttons.addWidget(button)
        layout.addLayout(buttons)
        layout.addLayout(more_buttons)
        self.editor_row = QWidget()
        editing = QHBoxLayout(self.editor_row)
        editing.setContentsMargins(0, 0, 0, 0)
        self.editor = QLineEdit()
        self.save_button = QPushButton("Save")
        self.cancel_button = QPushButton("Cancel")
        self.save_button.clicked.connect(self._save_edit)
        self.editor.returnPressed.connect(self._save_edit)
        self.cancel_button.clicked.connect(self.editor_row.hide)
        editing.addWidget(self.editor, 1)
        editing.addWidget(self.save_button)
        editing.addWidget(self.cancel_button)
        self.editor_row.hide()
        layout.addWidget(self.editor_row)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.pins_warning = QLabel("")  # pinned memories over memory.maxTokens
        self.pins_warning.setWordWrap(True)
        self.pins_warning.hide()
        layout.addWidget(self.pins_warning)
        self._update_buttons()

    def bind(self, bridge: CoreBridge, workspace: Workspace) -> None:
        self.bridge, self.workspace = bridge, workspace
        self.refresh()

    def _book(self) -> MemoryBook:
        assert self.workspace is not None
        return self.workspace.memories.book_for(self.workspace.agent)

    def refresh(self) -> None:
        """Load the memories again (off the GUI thread)."""
        if self.bridge is None or self.workspace is None:
            return
        statuses = FILTERS[self.status_filter.currentIndex()][1]
        text = self.search.text().strip()
        scope, tier = self.scope_filter.currentData(), self.tier_filter.currentData()
        workspace = self.workspace

        def load() -> tuple[list[Memory], str]:
            found = workspace.memories.find(workspace.agent, statuses, text)
            active = workspace.memories.find(workspace.agent, ("active",))
            warning = pins_over_budget_warning(active, workspace.agent.config.memory.max_tokens)
            return [m for m in found if scope in (None, m.scope) and tier in (None, m.tier)], warning

        self.status.setText("Loading memories…" if self.model.rowCount() == 0 else self.status.text())
        self._request += 1
        request = self._request
        self.bridge.call(load, on_result=lambda found: self._loaded(request, found), on_error=self._failed)

    def _loaded(self, request: int, found: tuple[list[Memory], str]) -> None:
        if request != self._request:
            return  # a later refresh (another filter or search) is on its way: this one is stale
        memories, warning = found
        self.pins_warning.setText(f"⚠ {warning}" if warning else "")
        self.pins_warning.setVisible(bool(warning))
        chosen = self.selected()
        self.model.set_memories(memories)
        if chosen is not None:  # keep the user's place across a refresh
            row = next((i for i, m in enumerate(memories) if m.id == chosen.id), None)
            if row is not None:
                self.table.selectRow(row)
        if self.status.text() == "Loading memories…":
            self.status.setText("" if memories else "No memories here. Add one with /remember in a chat.")
        self._update_buttons()

    def _failed(self, error: BaseException) -> None:
        self.status.setText(f"Memories could not be read: {error}")

    def selected(self) -> Memory | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.memory_at(rows[0].row()) if rows else None

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        # In the side panel (about 340 px) six columns left the memory's words a dozen letters:
        # there, kind, scope and importance give way (the words' tooltip names the importance).
        narrow = self.table.width() < WIDE_ENOUGH_FOR_EVERY_COLUMN
        for column in (MemoryColumn.KIND, MemoryColumn.SCOPE, MemoryColumn.IMPORTANCE):
            self.table.setColumnHidden(column, narrow)

    def _on_selected(self) -> None:
        self.editor_row.hide()
        self._update_buttons()

    def _update_buttons(self) -> None:
        memory = self.selected()
        status = memory.status if memory else ""
        self.accept_button.setEnabled(status == "proposed")
        self.reject_button.setEnabled(status == "proposed")
        self.edit_button.setEnabled(status in ("active", "proposed"))
        self.pin_button.setEnabled(status == "active")
        self.pin_button.setText("Unpin" if memory is not None and memory.tier == "pinned" else "Pin")
        self.forget_button.setEnabled(status in ("active", "proposed"))
        self.restore_button.setEnabled(status in ("forgotten", "expired", "superseded", "rejected"))
        self.history_button.setEnabled(memory is not None)

    def _start_editing(self) -> None:
        memory = self.selected()
        if memory is not None:
            self.editor.setText(memory.text)
            self.editor_row.show()
            self.editor.setFocus()

    def _save_edit(self) -> None:
        text = self.editor.text().strip()
        self.editor_row.hide()
        memory = self.selected()
        if memory is not None and text and text != memory.text:
            self._change(lambda book, m: book.edit(m.id, text), "Saved")

    def _change(self, change: Callable[[MemoryBook, Memory], Any], done: str) -> None:
        memory = self.selected()
        if memory is None or self.bridge is None:
            return

        def finished(_result: object) -> None:
            self.status.setText(f"{done}: {memory.text}")
            self.refresh()

        self.bridge.call(lambda: change(self._book(), memory), on_result=finished, on_error=self._failed)

    def _show_history(self) -> None:
        memory = self.selected()
        if memory is None or self.bridge is None:
            return

        def show(events: list[Any]) -> None:
            lines = [
                f"{event.event} by {event.actor}"
                + (f": “{event.old_text}” → “{event.new_text}”" if event.old_text else "")
                + (f" — {event.detail}" if event.detail else "")
                for event in events
            ]
            box = QMessageBox(QMessageBox.Icon.NoIcon, "History of a memory", memory.text, parent=self)
            box.setInformativeText("\n".join(lines))
            box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            self.last_history = box
            box.open()

        self.bridge.call(lambda: self._book().history(memory.id), on_result=show, on_error=self._failed)
