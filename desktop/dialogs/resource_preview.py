"""The text of a resource a tool result pointed at or carried, read-only, with Attach to chat."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

__all__ = ["MAX_PREVIEW_CHARACTERS", "ResourcePreviewDialog"]

MAX_PREVIEW_CHARACTERS = 1_000_000  # a longer resource is cut here, and says so


class ResourcePreviewDialog(QDialog):
    attach_requested = Signal()

    def __init__(self, uri: str, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(uri)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(uri))
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        if len(text) > MAX_PREVIEW_CHARACTERS:
            text = f"{text[:MAX_PREVIEW_CHARACTERS]}\n… [cut: {len(text):,} characters in all]"
        self.text.setPlainText(text)
        layout.addWidget(self.text)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.attach = buttons.addButton("Attach to chat", QDialogButtonBox.ButtonRole.ActionRole)
        self.attach.clicked.connect(self.attach_requested)
        self.attach.clicked.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(640, 480)
