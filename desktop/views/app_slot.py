"""The place under a tool call where its MCP App's view goes: the view itself, a button to show it
(a call from an earlier session, or a view closed), or one line saying why it cannot be shown."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop.theme import colors

__all__ = ["AppSlot"]


class AppSlot(QWidget):
    """Holds one tool call's view; what it shows is set by the chat's ChatApps."""

    open_requested = Signal()  # the user asks to show the view (again)
    add_component_requested = Signal()  # the user asks to add Qt WebEngine

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 0, 0, 4)
        layout.setSpacing(4)
        row = QHBoxLayout()
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {colors().muted};")
        self.open_button = QPushButton("Show its view")
        self.open_button.setToolTip("Show this tool call's interactive view (an MCP App) here")
        self.open_button.clicked.connect(self.open_requested)
        self.add_button = QPushButton("Add Qt WebEngine")
        self.add_button.setToolTip("Download and install the component that shows interactive views")
        self.add_button.clicked.connect(self.add_component_requested)
        self.add_button.hide()
        row.addWidget(self.note, 1)
        row.addWidget(self.open_button)
        row.addWidget(self.add_button)
        layout.addLayout(row)
        self._layout = layout
        self.view: QWidget | None = None
        self.offer("This tool call has an interactive view.")

    def offer(self, text: str) -> None:
        """``text`` and a button to show the view."""
        self._drop_view()
        self.note.setText(text)
        self.note.show()
        self.open_button.show()
        self.add_button.hide()

    def show_note(self, text: str, *, can_add_component: bool = False) -> None:
        """One line in place of the view: why it cannot be shown (the text result is above), with
        the button that adds Qt WebEngine when that is what is missing and it can be added here."""
        self._drop_view()
        self.note.setText(text)
        self.note.show()
        self.open_button.hide()
        self.add_button.setVisible(can_add_component)

    def show_view(self, view: QWidget) -> None:
        self._drop_view()
        self.note.hide()
        self.open_button.hide()
        self.add_button.hide()
        self.view = view
        self._layout.addWidget(view)

    def _drop_view(self) -> None:
        if self.view is not None:
            self.view.setParent(None)
            self.view.deleteLater()
            self.view = None
