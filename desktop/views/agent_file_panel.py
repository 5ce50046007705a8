"""The one editor of an agent's files (sub-agents, workflows): the files listed on the left with a
new one from a template below them; the chosen file's text on the right, saved or deleted (Delete
asks for a second click). What a kind of file does differently comes in an :class:`AgentFileKind`
(its noun, table, file, template, save and delete), and what its tab shows beside the text (its
problems, a test run, a run form and past runs) in the subclass's body and hooks."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.agent import Agent
from agent_core.errors import ContextDeskError
from desktop.bridge import CoreBridge, Generation
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.models._table import FileTableModel
from desktop.views.tables import row_table

__all__ = ["AgentFileKind", "AgentFilePanel"]


@dataclass(frozen=True)
class AgentFileKind:
    """One kind of agent file, as the editor needs it. ``save`` and ``delete`` take the agent's
    root and the file; they block (they run on the core thread) and raise ContextDeskError."""

    noun: str  # "sub-agent", in the panel's messages
    model: Callable[[QObject], FileTableModel[Any]]  # the table of the agent's files, made for a parent
    new_name_hint: str  # the new-name box's placeholder
    path_of: Callable[[Path, str], Path]  # (root, NAME) -> the file; raises for an unsafe name
    template: Callable[[str], str]  # NAME -> the text of a new file
    loaded: Callable[[Agent], Collection[str]]  # the names the agent has loaded
    save: Callable[[Path, Path, str], object]
    delete: Callable[[Path, Path], None]
    saved_note: str  # the file's label once saved: "saved", "saved; checking…"


class AgentFilePanel(QWidget):
    """The list, the new-file row and the file's label; a subclass adds its body under the label
    (``body_layout``), may add to the list's column (``list_layout``), and answers the hooks."""

    saved = Signal()  # a file was written or deleted: the agent is to be reloaded
    transcript_requested = Signal(str, str)  # a chat's id (a test run's, a workflow step's), a title

    def __init__(
        self, bridge: CoreBridge, host: WorkspaceHost, kind: AgentFileKind, parent: QWidget | None
    ) -> None:
        super().__init__(parent)
        self.bridge, self.host, self.kind = bridge, host, kind
        self.agent: Agent | None = None
        self.model = kind.model(self)
        self._editing: Path | None = None  # the file in the editor
        self._confirm_delete = False
        self._restoring = False
        self._file_generation = Generation()
        layout = QVBoxLayout(self)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        layout.addWidget(self.splitter, 1)

        left = QWidget()
        self.list_layout = QVBoxLayout(left)
        self.list_layout.setContentsMargins(0, 0, 0, 0)
        self.table = row_table(self.model)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._on_selected())
        self.list_layout.addWidget(self.table)
        new_row = QHBoxLayout()
        self.new_name = QLineEdit()
        self.new_name.setPlaceholderText(kind.new_name_hint)
        self.new_button = QPushButton("New from template")
        self.new_button.clicked.connect(self.new_from_template)
        self.new_name.returnPressed.connect(self.new_from_template)
        new_row.addWidget(self.new_name, 1)
        new_row.addWidget(self.new_button)
        self.list_layout.addLayout(new_row)
        self.splitter.addWidget(left)

        right = QWidget()
        self.body_layout = QVBoxLayout(right)
        self.body_layout.setContentsMargins(0, 0, 0, 0)
        self.file_label = QLabel(f"Select a {kind.noun}, or make a new one.")
        self.file_label.setStyleSheet("font-weight: 600;")
        self.body_layout.addWidget(self.file_label)
        self.splitter.addWidget(right)
        self.save_button = QPushButton("Save")
        self.delete_button = QPushButton("Delete")
        self.save_button.clicked.connect(self.save)
        self.delete_button.clicked.connect(self.delete)

    # --- what a subclass answers ----------------------------------------------------------------

    def text_box(self) -> QPlainTextEdit:
        """The box the file's text is edited in."""
        raise NotImplementedError

    def say(self, text: str, *, error: bool = False) -> None:
        """Show a message about the file (a refused name, a failure)."""
        raise NotImplementedError

    def _list_agent(self, agent: Agent) -> None:
        """Fill the list (and what goes with it) from the (re)loaded ``agent``."""
        raise NotImplementedError

    def _shown_again(self, row: int | None) -> None:
        """The agent reloaded with the file being edited at ``row`` (None: it is no longer listed)."""

    def _selected(self, row: int) -> None:
        """The file at ``row`` was chosen (its text is on its way)."""

    def _file_read(self, path: Path) -> None:
        """The chosen file's text is in the editor."""

    def _started_new(self) -> None:
        """A new file from the template is in the editor."""

    def _deleted(self) -> None:
        """The file in the editor was deleted (the editor is empty)."""

    # --- the list -----------------------------------------------------------------------------

    def set_agent(self, agent: Agent) -> None:
        """The agent (re)loaded: list its files again, the one being edited still selected."""
        self.agent = agent
        self._list_agent(agent)
        if self._editing is not None:
            row = self.model.row_of(self._editing)
            if row is not None:
                # Selecting it again must not read the file back over unsaved edits.
                self._restoring = True
                self.table.selectRow(row)
                self._restoring = False
            self._shown_again(row)
            label = self._label_of(self._editing)
            if self.file_label.text() == f"{label} ({self.kind.saved_note})":
                self.file_label.setText(f"{label} (saved)")  # the reload has checked it
        self._update_buttons()

    def _on_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        path = self.model.path_at(rows[0].row()) if rows else None
        if path is None or self._restoring:
            return
        token = self._file_generation.next()

        def shown(text: str) -> None:
            if not self._file_generation.is_current(token):
                return  # another file was chosen since
            self._edit_file(path, text)
            self._file_read(path)

        self.bridge.call(path.read_text, "utf-8", on_result=shown, on_error=self.show_failure)
        self._selected(rows[0].row())

    def _label_of(self, path: Path) -> str:
        """The file as its label shows it: relative to the agent's folder."""
        root = self.agent.root if self.agent is not None else None
        return str(path.relative_to(root) if root is not None and path.is_relative_to(root) else path)

    def _edit_file(self, path: Path, text: str) -> None:
        self._editing = path
        self._confirm_delete = False
        self.file_label.setText(self._label_of(path))
        self.text_box().setPlainText(text)
        self._update_buttons()

    def new_from_template(self) -> None:
        name, noun = self.new_name.text().strip(), self.kind.noun
        if self.agent is None:
            return
        if not name:
            self.say(f"Type a name for the new {noun} first.", error=True)
            return
        try:
            path = self.kind.path_of(self.agent.root, name)
        except ContextDeskError as error:
            self.say(f"{error}.", error=True)
            return
        if path.exists() or name in self.kind.loaded(self.agent):
            self.say(f"There is already a {noun} named {name}: pick another name.", error=True)
            return
        self.table.clearSelection()
        self._edit_file(path, self.kind.template(name))
        self._started_new()
        self.file_label.setText(f"{self._label_of(path)} (new, not saved yet)")
        self.new_name.clear()

    # --- saving and deleting --------------------------------------------------------------------

    def save(self) -> None:
        if self.agent is None or self._editing is None:
            return
        root, path, text = self.agent.root, self._editing, self.text_box().toPlainText()
        label = self._label_of(path)

        def done(_: object) -> None:
            self.file_label.setText(f"{label} ({self.kind.saved_note})")
            self.saved.emit()

        self.bridge.call(self.kind.save, root, path, text, on_result=done, on_error=self.show_failure)

    def delete(self) -> None:
        if self.agent is None or self._editing is None:
            return
        if not self._confirm_delete:
            self._confirm_delete = True
            self.delete_button.setText(f"Click again to delete {self._editing.name}")
            return
        root, path = self.agent.root, self._editing
        label = self._label_of(path)

        def done(_: None) -> None:
            self._editing = None
            self._confirm_delete = False
            self.text_box().clear()
            self.file_label.setText(f"{label} deleted.")
            self._deleted()
            self._update_buttons()
            self.saved.emit()

        self.bridge.call(self.kind.delete, root, path, on_result=done, on_error=self.show_failure)

    def _update_buttons(self) -> None:
        editing = self._editing is not None
        self.save_button.setEnabled(editing)
        self.delete_button.setEnabled(editing)
        if not self._confirm_delete:
            self.delete_button.setText("Delete")

    def show_failure(self, error: BaseException) -> None:
        """Say what went wrong (a file not read, saved or deleted)."""
        self.say(str(error) if isinstance(error, ContextDeskError) else repr(error), error=True)
