"""A memory row in the transcript: a proposal with Accept / Edit / Reject, or a saved memory with
Forget. Editing happens in place; "Save and accept" accepts the corrected words."""

from __future__ import annotations

from html import escape
from typing import ClassVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from desktop.models.conversation_entries import Entry
from desktop.theme import colors
from desktop.views.common import Badge
from desktop.views.entry_widget import EntryWidget

__all__ = ["MemoryChip"]


class MemoryChip(EntryWidget):
    accept_requested = Signal(object)  # the corrected words, or None to accept as proposed
    reject_requested = Signal()
    forget_requested = Signal()

    OUTCOME_TEXT: ClassVar[dict[str, str]] = {
        "accepted": "Accepted: used from your next message",
        "rejected": "Rejected: it will not be recalled",
        "forgotten": "Forgotten: restore it from the Memories tab",
        "working": "Saving…",
    }

    def __init__(self, entry: Entry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        palette = colors()
        self.setObjectName("memoryChip")
        self.setStyleSheet(
            f"#memoryChip {{ border: 1px solid {palette.border}; border-radius: 10px;"
            f" background-color: {palette.inline_code_background}; }}"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(4)
        top = QHBoxLayout()
        self.badge = Badge("Memory", "score")
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignTop)
        top.addWidget(self.label, 1)
        layout.addLayout(top)
        self.editor = QPlainTextEdit()
        self.editor.setFixedHeight(self.editor.fontMetrics().lineSpacing() * 3 + 14)
        self.editor.hide()
        layout.addWidget(self.editor)
        buttons = QHBoxLayout()
        self.accept_button = QPushButton("Accept")
        self.accept_button.setToolTip("Remember it: recalled from your next message when it is relevant")
        self.edit_button = QPushButton("Edit…")
        self.edit_button.setToolTip("Correct the words, then accept")
        self.reject_button = QPushButton("Reject")
        self.reject_button.setToolTip("Do not remember it")
        self.save_button = QPushButton("Save and accept")
        self.cancel_button = QPushButton("Cancel")
        self.forget_button = QPushButton("Forget")
        self.forget_button.setToolTip("Not recalled any more (restore it from the Memories tab)")
        self.accept_button.clicked.connect(lambda: self.accept_requested.emit(None))
        self.reject_button.clicked.connect(self.reject_requested)
        self.forget_button.clicked.connect(self.forget_requested)
        self.edit_button.clicked.connect(self.start_editing)
        self.save_button.clicked.connect(self._save)
        self.cancel_button.clicked.connect(self._stop_editing)
        for button in (
            self.accept_button,
            self.edit_button,
            self.reject_button,
            self.save_button,
            self.cancel_button,
            self.forget_button,
        ):
            button.setAutoDefault(False)
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.outcome = QLabel()
        self.outcome.setStyleSheet(f"color: {palette.muted};")
        buttons.addWidget(self.outcome)
        layout.addLayout(buttons)
        self.set_entry(entry)

    @property
    def editing(self) -> bool:
        return not self.editor.isHidden()

    def set_entry(self, entry: Entry) -> None:
        super().set_entry(entry)
        self.label.setText(self._describe(entry))
        proposed = entry.status == "proposed"
        editing = proposed and self.editing
        self.accept_button.setVisible(proposed and not editing)
        self.edit_button.setVisible(proposed and not editing)
        self.reject_button.setVisible(proposed and not editing)
        self.save_button.setVisible(editing)
        self.cancel_button.setVisible(editing)
        self.forget_button.setVisible(entry.status in ("remembered", "accepted"))
        if not proposed:
            self.editor.hide()
        self.outcome.setText(self.OUTCOME_TEXT.get(entry.status, ""))

    @staticmethod
    def _describe(entry: Entry) -> str:
        words = f"“{escape(entry.text)}”"
        replaces = f"<br><span>replacing “{escape(entry.replaces)}”</span>" if entry.replaces else ""
        if entry.status == "proposed":
            return f"Remember {words}?{replaces}"
        if entry.merged:
            return f"Already remembered: {words}"
        if entry.status in ("rejected", "forgotten"):
            return f"<s>{words}</s>"
        return f"Remembered {words}{replaces}"

    def start_editing(self) -> None:
        if self.entry is None or self.entry.status != "proposed":
            return
        self.editor.setPlainText(self.entry.text)
        self.editor.show()
        self.set_entry(self.entry)
        self.editor.setFocus(Qt.FocusReason.OtherFocusReason)

    def _stop_editing(self) -> None:
        self.editor.hide()
        if self.entry is not None:
            self.set_entry(self.entry)

    def _save(self) -> None:
        text = self.editor.toPlainText().strip()
        self._stop_editing()
        if text and self.entry is not None:
            self.accept_requested.emit(text if text != self.entry.text else None)
