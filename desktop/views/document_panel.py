"""Rules or references: a filterable list and an editor with markdown preview; create, duplicate, delete.

Saves go through the core's atomic writer; the file watcher then reloads the agent, which is also
how an edit made in another program shows up here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QItemSelection, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.agent import Agent
from agent_core.agent.items import DocumentItem, DocumentKind
from agent_core.agent.names import name_problem
from agent_core.agent.schema import IncludeMode
from agent_core.agent.writer import delete_document, save_document
from agent_core.errors import ContextDeskError
from desktop.bridge import CoreBridge
from desktop.models.documents import Column, DocumentListModel, Role, document_proxy
from desktop.theme import colors
from desktop.views.common import MarkdownView

__all__ = ["DocumentEditor", "DocumentPanel"]

logger = logging.getLogger(__name__)


def _field_error() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setStyleSheet(f"color: {colors().error};")
    label.hide()
    return label


class DocumentEditor(QWidget):
    """The fields of one rule or reference, with errors shown under the field they concern."""

    changed = Signal()

    def __init__(self, kind: DocumentKind, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        form = QFormLayout()
        self.name = QLineEdit()
        self.name.setPlaceholderText("file name: letters, digits, _ or -")
        self.name_error = _field_error()
        self.description = QLineEdit()
        self.description.setPlaceholderText("one line: what it is for (the selector reads it too)")
        self.priority = QSpinBox()
        self.priority.setRange(0, 999)
        self.priority.setToolTip("0-999: lower comes first")
        self.include = QComboBox()
        for mode, label in (
            (IncludeMode.ALWAYS, "Always: every new chat"),
            (IncludeMode.MANUAL, "Manual: when you add it"),
            (IncludeMode.AGENT, "Agent: chosen per message when relevant"),
        ):
            self.include.addItem(label, mode.value)
        form.addRow("Name", self.name)
        form.addRow("", self.name_error)
        form.addRow("Description", self.description)
        form.addRow("Priority", self.priority)
        form.addRow("Include", self.include)
        layout.addLayout(form)
        self.tabs = QTabWidget()
        self.body = QPlainTextEdit()
        self.body.setPlaceholderText("Markdown")
        self.preview = MarkdownView()
        # The view is as tall as its text: it scrolls here, or a long item would make the window
        # taller than the screen.
        preview_page = QScrollArea()
        preview_page.setWidgetResizable(True)
        preview_page.setFrameShape(QFrame.Shape.NoFrame)
        preview_content = QWidget()
        preview_layout = QVBoxLayout(preview_content)
        preview_layout.addWidget(self.preview)
        preview_layout.addStretch(1)
        preview_page.setWidget(preview_content)
        self.tabs.addTab(self.body, "Markdown")
        self.tabs.addTab(preview_page, "Preview")
        self.tabs.currentChanged.connect(self._on_tab_changed)
        layout.addWidget(self.tabs, 1)
        self.body_error = _field_error()
        layout.addWidget(self.body_error)
        for edit in (self.name, self.description):
            edit.textEdited.connect(lambda _t: self.changed.emit())
        # An error under a field follows the field as it is edited: it goes once the field is fixed.
        self._taken: Callable[[str], bool] = lambda _name: False
        self.name.textChanged.connect(lambda _t: self._recheck(self.name_error, self._check_name))
        self.body.textChanged.connect(lambda: self._recheck(self.body_error, self._check_body))
        self.priority.valueChanged.connect(lambda _v: self.changed.emit())
        self.include.currentIndexChanged.connect(lambda _i: self.changed.emit())
        self.body.textChanged.connect(self.changed.emit)

    def _on_tab_changed(self, index: int) -> None:
        if index == 1:  # the preview is rendered when it is shown, not on every keystroke
            self.preview.set_markdown(self.body.toPlainText())

    def load(self, item: DocumentItem) -> None:
        self.blockSignals(True)
        self.name_error.hide()
        self.body_error.hide()
        self.name.setText(item.name)
        self.description.setText(item.description)
        self.priority.setValue(item.priority_level)
        self.include.setCurrentIndex(max(0, self.include.findData(item.include.value)))
        self.body.setPlainText(item.text)
        self.blockSignals(False)
        if self.tabs.currentIndex() == 1:
            self.preview.set_markdown(item.text)

    def value(self) -> DocumentItem:
        return DocumentItem(
            kind=self.kind,
            name=self.name.text().strip(),
            description=" ".join(self.description.text().split()),
            priority_level=self.priority.value(),
            include=IncludeMode(self.include.currentData()),
            text=self.body.toPlainText(),
        )

    def validate(self, taken: Callable[[str], bool]) -> bool:
        """Show what is wrong under each field; ``taken`` tells a name another item already has."""
        self._taken = taken
        name_ok = self._check_name()
        body_ok = self._check_body()
        return name_ok and body_ok

    def _check_name(self) -> bool:
        name = self.name.text().strip()
        problem = name_problem(name)
        if problem is None and self._taken(name):
            problem = f"another {self.kind} is already called '{name}': choose another name"
        self.name_error.setText(problem.capitalize() if problem else "")
        self.name_error.setVisible(problem is not None)
        return problem is None

    def _check_body(self) -> bool:
        empty = not self.body.toPlainText().strip()
        self.body_error.setText("The text is empty: write what the assistant should know or do.")
        self.body_error.setVisible(empty)
        return not empty

    @staticmethod
    def _recheck(error: QLabel, check: Callable[[], bool]) -> None:
        if not error.isHidden():
            check()


class DocumentPanel(QWidget):
    """All rules (or references) of the agent. ``saved`` asks the host to reload the agent."""

    saved = Signal()

    def __init__(self, kind: DocumentKind, bridge: CoreBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.bridge = bridge
        self.agent: Agent | None = None
        self.model = DocumentListModel(self)
        self.proxy = document_proxy(self.model, self)
        self._current: str | None = None  # name of the item in the editor (None: a new one)
        self._dirty = False

        layout = QHBoxLayout(self)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        layout.addWidget(splitter)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText(f"Filter {kind}s")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.proxy.set_text)
        left_layout.addWidget(self.filter)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(Column.PRIORITY, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setShowGrid(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(Column.DESCRIPTION, QHeaderView.ResizeMode.Stretch)
        for column in (Column.PRIORITY, Column.NAME, Column.INCLUDE):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.table.selectionModel().selectionChanged.connect(self._on_selected)
        left_layout.addWidget(self.table, 1)
        buttons = QHBoxLayout()
        self.new_button = QPushButton("New")
        self.duplicate_button = QPushButton("Duplicate")
        self.delete_button = QPushButton("Delete")
        self.new_button.clicked.connect(self.new_item)
        self.duplicate_button.clicked.connect(self.duplicate_item)
        self.delete_button.clicked.connect(self.delete_item)
        for button in (self.new_button, self.duplicate_button, self.delete_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        left_layout.addLayout(buttons)
        splitter.addWidget(left)

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        self.editor = DocumentEditor(kind)
        self.editor.changed.connect(self._on_edited)
        right_layout.addWidget(self.editor, 1)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setStyleSheet(f"color: {colors().muted};")
        actions = QHBoxLayout()
        actions.addWidget(self.status, 1)
        self.revert_button = QPushButton("Revert")
        self.save_button = QPushButton("Save")
        self.save_button.setDefault(True)
        self.save_button.setShortcut("Ctrl+S")
        self.revert_button.clicked.connect(self._revert)
        self.save_button.clicked.connect(self.save)
        actions.addWidget(self.revert_button)
        actions.addWidget(self.save_button)
        right_layout.addLayout(actions)
        splitter.addWidget(right)
        splitter.setSizes([460, 620])
        self._update_buttons()

    # --- agent --------------------------------------------------------------------------------

    def set_agent(self, agent: Agent) -> None:
        """Show the agent's items; the item being edited is kept unless it has unsaved changes."""
        self.agent = agent
        self.model.set_documents(agent.documents(self.kind).values())
        if self._current is not None:
            item = agent.document(self.kind, self._current)
            if item is None and not self._dirty:
                self._current = None
                self._clear()
            elif item is not None and not self._dirty:
                self.editor.load(item)
            elif item is not None and self._dirty and item != self.editor.value():
                self._note(
                    "This file changed on disk. Save to keep your version, or Revert to load the new one."
                )
        self._select(self._current)
        self._update_buttons()

    # --- selection and editing ----------------------------------------------------------------

    def _select(self, name: str | None) -> None:
        row = self.model.row_of(name) if name else None
        if row is None:
            return
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        self.table.blockSignals(True)
        self.table.selectRow(index.row())
        self.table.blockSignals(False)

    def _on_selected(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        indexes = selected.indexes()
        if not indexes:
            return
        item = indexes[0].data(Role.DOCUMENT)
        if item is None or item.name == self._current:
            return
        if self._dirty and not self._confirm_discard():
            self._select(self._current)
            return
        self.open_item(item.name)

    def open_item(self, name: str) -> None:
        if self.agent is None or (item := self.agent.document(self.kind, name)) is None:
            return
        self._current = name
        self.editor.load(item)
        self._dirty = False
        self._note(str(item.path or ""))
        self._select(name)
        self._update_buttons()

    def _confirm_discard(self) -> bool:
        answer = QMessageBox.question(
            self,
            "Unsaved changes",
            "Discard the changes to this item?",
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Discard

    def _on_edited(self) -> None:
        self._dirty = True
        self._note("Unsaved changes")
        self._update_buttons()

    def _clear(self) -> None:
        self.editor.load(DocumentItem(kind=self.kind, name=""))
        self._dirty = False
        self._note("")

    def new_item(self) -> None:
        if self._dirty and not self._confirm_discard():
            return
        self._current = None
        self.table.clearSelection()
        self.editor.load(DocumentItem(kind=self.kind, name=self._free_name(f"new-{self.kind}")))
        self._dirty = True
        self._note(f"New {self.kind}: fill it in and Save")
        self.editor.name.setFocus()
        self.editor.name.selectAll()
        self._update_buttons()

    def duplicate_item(self) -> None:
        if self._current is None:
            return
        item = self.editor.value()
        self._current = None
        self.table.clearSelection()
        self.editor.load(
            DocumentItem(
                kind=self.kind,
                name=self._free_name(f"{item.name}-copy"),
                description=item.description,
                priority_level=item.priority_level,
                include=item.include,
                text=item.text,
            )
        )
        self._dirty = True
        self._note("Copy: change what you need and Save")
        self._update_buttons()

    def _free_name(self, base: str) -> str:
        taken = set(self.agent.documents(self.kind)) if self.agent else set()
        name, number = base, 2
        while name in taken:
            name, number = f"{base}-{number}", number + 1
        return name

    def _taken(self, name: str) -> bool:
        if self.agent is None or name == self._current:
            return False
        return any(existing.lower() == name.lower() for existing in self.agent.documents(self.kind))

    # --- saving -------------------------------------------------------------------------------

    def save(self) -> None:
        agent = self.agent
        if agent is None or not self.editor.validate(self._taken):
            return
        item = self.editor.value()
        previous = self._current
        root = agent.root

        def write() -> DocumentItem:
            saved = save_document(root, item, based_on=previous)
            if previous is not None and previous != item.name:
                delete_document(root, self.kind, previous)
            return saved

        def done(saved: DocumentItem) -> None:
            self._current = saved.name
            self._dirty = False
            self._note(f"Saved {saved.path}")
            self._update_buttons()
            self.saved.emit()

        self.save_button.setEnabled(False)
        self.bridge.call(write, on_result=done, on_error=self._failed)

    def delete_item(self) -> None:
        agent = self.agent
        name = self._current
        if agent is None or name is None:
            return
        answer = QMessageBox.question(
            self, f"Delete {self.kind}", f"Delete the {self.kind} '{name}' and its file?"
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        self.delete_now(name)

    def delete_now(self, name: str) -> None:
        agent = self.agent
        if agent is None:
            return

        def done(_: None) -> None:
            self._current = None
            self._clear()
            self._note(f"Deleted {name}")
            self._update_buttons()
            self.saved.emit()

        self.bridge.call(delete_document, agent.root, self.kind, name, on_result=done, on_error=self._failed)

    def _revert(self) -> None:
        self._dirty = False
        if self._current is not None:
            self.open_item(self._current)
        else:
            self._clear()
        self._update_buttons()

    def _failed(self, error: BaseException) -> None:
        text = str(error) if isinstance(error, ContextDeskError) else f"Could not save: {error!r}"
        self.status.setText(text)
        self.status.setStyleSheet(f"color: {colors().error};")
        self._update_buttons()

    def _note(self, text: str) -> None:
        self.status.setText(text)
        self.status.setStyleSheet(f"color: {colors().muted};")

    def _update_buttons(self) -> None:
        has_item = self._current is not None
        self.duplicate_button.setEnabled(has_item)
        self.delete_button.setEnabled(has_item)
        self.save_button.setEnabled(self._dirty)
        self.revert_button.setEnabled(self._dirty)
        editing = has_item or self._dirty
        self.editor.setEnabled(editing)
