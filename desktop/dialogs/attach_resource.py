"""Attach a resource of one of the agent's MCP servers to the chat, as a reference.

The list comes from every ready server; the chosen resource is read on the core thread and its
text is kept with the chat as it reads now (the server is not asked again when the chat is sent).
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListView,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from agent_core.context.items import ItemRef
from agent_core.errors import ContextDeskError
from agent_core.mcp.types import ResourceContent, ResourceInfo
from desktop.bridge import CoreBridge, Generation
from desktop.controllers.chat_controller import ChatController
from desktop.models.mcp_catalog import CatalogRole, ResourceListModel
from desktop.theme import colors

__all__ = ["AttachResourceDialog", "ResourceSource"]


class ResourceSource(Protocol):
    """The agent's ``McpManager``, as far as this dialog uses it."""

    async def list_resources(self, server: str | None = None) -> list[ResourceInfo]: ...

    async def read_resource(self, server: str, uri: str) -> ResourceContent: ...


class AttachResourceDialog(QDialog):
    def __init__(
        self,
        bridge: CoreBridge,
        source: ResourceSource,
        controller: ChatController,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.source = source
        self.controller = controller
        self._generation = Generation()
        self.setWindowTitle("Attach from a tool server")
        self.resize(560, 380)
        layout = QVBoxLayout(self)
        intro = QLabel(
            "The resource's text joins this chat as a reference, as it reads now. "
            "Remove it from the chat's References when it is no longer needed."
        )
        intro.setWordWrap(True)
        intro.setStyleSheet(f"color: {colors().muted};")
        layout.addWidget(intro)
        self.model = ResourceListModel(self)
        self.list = QListView()
        self.list.setModel(self.model)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.doubleClicked.connect(lambda _index: self.attach())
        self.list.selectionModel().currentChanged.connect(lambda *_: self._update())
        layout.addWidget(self.list, 1)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.attach_button = QPushButton("Attach")
        self.attach_button.setDefault(True)
        buttons.addButton(self.attach_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.attach_button.clicked.connect(self.attach)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self._busy = False
        self.load()

    def load(self) -> None:
        """Ask every ready server for its resources."""
        token = self._generation.next()
        self._set_status("Asking the tool servers for their resources…")
        self._busy = True
        self._update()

        def done(resources: list[ResourceInfo]) -> None:
            if not self._generation.is_current(token):
                return
            self._busy = False
            self.model.set_items(resources)
            if resources:
                self.list.setCurrentIndex(self.model.index(0))
                self._set_status("")
            else:
                self._set_status(
                    "None of this agent's tool servers offers resources (or none is ready yet). "
                    "Add a server that does in Agent › Tools."
                )
            self._update()

        self.bridge.submit(self.source.list_resources(), done, lambda error: self._failed(token, error))

    def selected(self) -> ResourceInfo | None:
        index: QModelIndex = self.list.currentIndex()
        item = index.data(CatalogRole.ITEM) if index.isValid() else None
        return item if isinstance(item, ResourceInfo) else None

    def attach(self) -> None:
        resource = self.selected()
        if resource is None or self._busy:
            return
        token = self._generation.next()
        self._busy = True
        self._update()
        self._set_status(f"Reading {resource.uri}…")

        def done(_ref: ItemRef) -> None:
            if self._generation.is_current(token):
                self.accept()

        self.controller.attach_resource(self.source, resource, done, lambda error: self._failed(token, error))

    def _failed(self, token: int, error: BaseException) -> None:
        if not self._generation.is_current(token):
            return
        self._busy = False
        self._update()
        text = str(error) if isinstance(error, ContextDeskError) else f"Something went wrong: {error!r}"
        self._set_status(text, error=True)

    def _set_status(self, text: str, *, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet(f"color: {colors().error};" if error else f"color: {colors().muted};")
        self.status.setVisible(bool(text))

    def _update(self) -> None:
        self.attach_button.setEnabled(not self._busy and self.selected() is not None)
        self.list.setEnabled(not self._busy)
        self.setCursor(Qt.CursorShape.BusyCursor if self._busy else Qt.CursorShape.ArrowCursor)
