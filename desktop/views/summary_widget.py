"""A compaction summary in the transcript: collapsed, expandable, editable, with Undo just after
the compaction."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.models.conversation_entries import Entry
from desktop.theme import colors
from desktop.views.common import MarkdownView
from desktop.views.entry_widget import EntryWidget, disclosure_toggle

__all__ = ["SummaryWidget"]


class SummaryWidget(EntryWidget):
    """ "Conversation so far — summarizes N earlier messages": collapsed, expandable, editable;
    just after a compaction, open and with Undo."""

    edited = Signal(str)
    undo_requested = Signal()

    def __init__(self, entry: Entry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        palette = colors()
        self.setObjectName("summary")
        self.setStyleSheet(
            f"#summary {{ border: 1px dashed {palette.border}; border-radius: 10px;"
            f" background-color: {palette.inline_code_background}; }}"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 6)
        layout.setSpacing(4)
        header = QHBoxLayout()
        self.toggle = disclosure_toggle()
        self.toggle.setToolTip("The model sees this summary instead of the dimmed messages above it")
        self.toggle.setStyleSheet("QToolButton { border: none; background: transparent; font-weight: 600; }")
        self.toggle.toggled.connect(self._expand)
        self.edit_button = QPushButton("Edit")
        self.edit_button.setFlat(True)
        self.edit_button.setToolTip("Correct the summary: the next message uses your text")
        self.edit_button.clicked.connect(self.start_editing)
        self.undo_button = QPushButton("Undo")
        self.undo_button.setFlat(True)
        self.undo_button.setToolTip("Take the compaction back: the covered messages are sent again")
        self.undo_button.clicked.connect(self.undo_requested)
        self.undo_button.hide()
        header.addWidget(self.toggle, 1)
        header.addWidget(self.undo_button)
        header.addWidget(self.edit_button)
        layout.addLayout(header)
        self.body = MarkdownView()
        self.body.hide()
        layout.addWidget(self.body)
        self.editor = QPlainTextEdit()
        self.editor.setMinimumHeight(120)
        self.editor.hide()
        layout.addWidget(self.editor)
        self.edit_buttons = QWidget()
        buttons = QHBoxLayout(self.edit_buttons)
        buttons.setContentsMargins(0, 0, 0, 0)
        self.save_button = QPushButton("Save")
        self.save_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel")
        self.save_button.clicked.connect(self._save)
        self.cancel_button.clicked.connect(self._stop_editing)
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.save_button)
        self.edit_buttons.hide()
        layout.addWidget(self.edit_buttons)
        self.set_entry(entry)

    def set_entry(self, entry: Entry) -> None:
        super().set_entry(entry)
        how = " (compacted automatically)" if entry.automatic else ""
        plural = "" if entry.covered == 1 else "s"
        self.toggle.setText(f"Conversation so far{how} — summarizes {entry.covered} earlier message{plural}")
        self.body.set_markdown(entry.text)
        self.edit_button.setVisible(not entry.dimmed and entry.message is not None)
        self.undo_button.setVisible(entry.fresh and not entry.dimmed and entry.message is not None)
        if entry.fresh and not self.toggle.isChecked():
            self.toggle.setChecked(True)  # just made: show what now stands for the turns

    @property
    def editing(self) -> bool:
        return not self.editor.isHidden()

    def _expand(self, expanded: bool) -> None:
        self.body.setVisible(expanded and not self.editing)

    def start_editing(self) -> None:
        if self.entry is None:
            return
        self.toggle.setChecked(True)
        self.editor.setPlainText(self.entry.text)
        self.body.hide()
        self.editor.show()
        self.edit_buttons.show()
        self.edit_button.hide()
        self.editor.setFocus(Qt.FocusReason.OtherFocusReason)

    def _stop_editing(self) -> None:
        self.editor.hide()
        self.edit_buttons.hide()
        self.body.setVisible(self.toggle.isChecked())
        self.edit_button.setVisible(self.entry is not None and not self.entry.dimmed)

    def _save(self) -> None:
        text = self.editor.toPlainText().strip()
        self._stop_editing()
        if text and self.entry is not None and text != self.entry.text:
            self.edited.emit(text)
