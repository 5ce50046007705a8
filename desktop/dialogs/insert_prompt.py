"""Insert a prompt of one of the agent's MCP servers into the message box (``/prompt``).

The user picks a prompt, fills in its arguments in a small form, and the server's filled-in text
goes into the message box, to be read and edited before it is sent.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from agent_core.errors import ContextDeskError
from agent_core.mcp.types import PromptInfo, PromptResult
from desktop.bridge import CoreBridge, Generation
from desktop.models.mcp_catalog import CatalogRole, PromptListModel
from desktop.theme import colors

__all__ = ["InsertPromptDialog", "PromptSource"]


class PromptSource(Protocol):
    """The agent's ``McpManager``, as far as this dialog uses it."""

    async def list_prompts(self, server: str | None = None) -> list[PromptInfo]: ...

    async def get_prompt(
        self, server: str, name: str, arguments: dict[str, str] | None = None
    ) -> PromptResult: ...


class InsertPromptDialog(QDialog):
    """``text_ready`` carries the filled-in prompt; the dialog then closes."""

    text_ready = Signal(str)

    def __init__(
        self, bridge: CoreBridge, source: PromptSource, parent: QWidget | None = None, *, preselect: str = ""
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.source = source
        self._preselect = preselect
        self._generation = Generation()
        self._busy = False
        self.fields: dict[str, QLineEdit] = {}
        self.setWindowTitle("Insert a prompt from a tool server")
        self.resize(560, 420)
        layout = QVBoxLayout(self)
        intro = QLabel("The prompt's text goes into the message box; nothing is sent until you send it.")
        intro.setWordWrap(True)
        intro.setStyleSheet(f"color: {colors().muted};")
        layout.addWidget(intro)
        self.model = PromptListModel(self)
        self.list = QListView()
        self.list.setModel(self.model)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.selectionModel().currentChanged.connect(lambda *_: self._show_arguments())
        layout.addWidget(self.list, 1)
        self.form_title = QLabel()
        self.form_title.setStyleSheet("font-weight: 600;")
        layout.addWidget(self.form_title)
        self.form_host = QWidget()
        self.form = QFormLayout(self.form_host)
        self.form.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.form_host)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.insert_button = QPushButton("Insert")
        self.insert_button.setDefault(True)
        buttons.addButton(self.insert_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.insert_button.clicked.connect(self.insert)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self._show_arguments()
        self.load()

    def load(self) -> None:
        """Ask every ready server for its prompts."""
        token = self._generation.next()
        self._set_busy(True, "Asking the tool servers for their prompts…")

        def done(prompts: list[PromptInfo]) -> None:
            if not self._generation.is_current(token):
                return
            self.model.set_items(prompts)
            if not prompts:
                self._set_busy(
                    False,
                    "None of this agent's tool servers offers prompts (or none is ready yet). "
                    "Add a server that does in Agent › Tools.",
                )
                return
            names = [p.name for p in self.model.items()]
            row = names.index(self._preselect) if self._preselect in names else 0
            self.list.setCurrentIndex(self.model.index(row))
            self._set_busy(
                False,
                ""
                if not self._preselect or self._preselect in names
                else f"No prompt named '{self._preselect}'.",
            )

        self.bridge.submit(self.source.list_prompts(), done, lambda error: self._failed(token, error))

    def selected(self) -> PromptInfo | None:
        index = self.list.currentIndex()
        item = index.data(CatalogRole.ITEM) if index.isValid() else None
        return item if isinstance(item, PromptInfo) else None

    def _show_arguments(self) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.fields = {}
        prompt = self.selected()
        self.form_title.setVisible(prompt is not None and bool(prompt.arguments))
        self.form_title.setText("Arguments")
        for argument in prompt.arguments if prompt is not None else ():
            field = QLineEdit()
            field.setPlaceholderText(
                argument.description or ("required" if argument.required else "optional")
            )
            field.setToolTip(argument.description)
            field.returnPressed.connect(self.insert)
            field.textEdited.connect(lambda _text: self._set_status(""))
            self.form.addRow(f"{argument.name}{' *' if argument.required else ''}", field)
            self.fields[argument.name] = field
        self._update()

    def arguments(self) -> dict[str, str]:
        """The filled-in arguments (empty optional ones left out, so the server's defaults apply).

        Raises:
            ValueError: a required argument is empty.
        """
        prompt = self.selected()
        required = {a.name for a in prompt.arguments if a.required} if prompt is not None else set()
        values = {name: field.text() for name, field in self.fields.items() if field.text().strip()}
        missing = sorted(required - set(values))
        if missing:
            raise ValueError(f"Fill in {', '.join(missing)} (marked *) first.")
        return values

    def insert(self) -> None:
        prompt = self.selected()
        if prompt is None or self._busy:
            return
        try:
            arguments = self.arguments()
        except ValueError as error:
            self._set_status(str(error), error=True)
            return
        token = self._generation.next()
        self._set_busy(True, f"Asking {prompt.server} for “{prompt.name}”…")

        def done(result: PromptResult) -> None:
            if not self._generation.is_current(token):
                return
            self._set_busy(False, "")
            self.text_ready.emit(result.text)
            self.accept()

        self.bridge.submit(
            self.source.get_prompt(prompt.server, prompt.name, arguments),
            done,
            lambda e: self._failed(token, e),
        )

    def _failed(self, token: int, error: BaseException) -> None:
        if self._generation.is_current(token):
            self._set_busy(False, "")
            text = str(error) if isinstance(error, ContextDeskError) else f"Something went wrong: {error!r}"
            self._set_status(text, error=True)

    def _set_busy(self, busy: bool, text: str) -> None:
        self._busy = busy
        self._set_status(text)
        self.setCursor(Qt.CursorShape.BusyCursor if busy else Qt.CursorShape.ArrowCursor)
        self._update()

    def _set_status(self, text: str, *, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet(f"color: {colors().error};" if error else f"color: {colors().muted};")
        self.status.setVisible(bool(text))

    def _update(self) -> None:
        self.insert_button.setEnabled(not self._busy and self.selected() is not None)
        self.list.setEnabled(not self._busy)
        self.form_host.setEnabled(not self._busy)
