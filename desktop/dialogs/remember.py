""" "Remember this" on a message: the user keeps the fact worth remembering (the message's words
are only a start) and saves it as a memory taken from that message."""

from __future__ import annotations

from PySide6.QtCore import QSize, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from agent_core.memory.sensitive import find_sensitive
from desktop.theme import colors
from desktop.views.window_geometry import fit_size

__all__ = ["START_LIMIT", "RememberDialog"]

# A memory is a fact, not a transcript: only the start of a long message is offered to trim.
START_LIMIT = 500


class RememberDialog(QDialog):
    remember = Signal(str)  # the words to save

    def __init__(self, message_text: str, *, from_assistant: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Remember this")
        fit_size(self, QSize(520, 260))
        palette = colors()
        layout = QVBoxLayout(self)
        who = "the assistant's reply" if from_assistant else "your message"
        intro = QLabel(
            f"Keep only the fact worth remembering from {who}. It is recalled in later chats "
            "when it is relevant, and you can edit or forget it in the Memories tab."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.editor = QPlainTextEdit(message_text.strip()[:START_LIMIT])
        layout.addWidget(self.editor, 1)
        self.warning = QLabel()
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet(
            f"background-color: {palette.warning_background}; padding: 6px; border-radius: 6px;"
        )
        layout.addWidget(self.warning)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setText("Remember")
        self.buttons.accepted.connect(self._save)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.editor.textChanged.connect(self._check)
        self._check()

    def _check(self) -> None:
        text = self.editor.toPlainText().strip()
        self.save_button.setEnabled(bool(text))
        found = find_sensitive(text)
        self.warning.setText(
            f"This looks like it holds {', '.join(str(m) for m in found)}: memories are stored unencrypted on this "
            "computer. Remove it unless you mean to keep it."
            if found
            else ""
        )
        self.warning.setVisible(bool(found))

    def _save(self) -> None:
        text = self.editor.toPlainText().strip()
        if text:
            self.remember.emit(text)
            self.accept()
