"""A skill's SKILL.md, read-only: what the model reads when it loads the skill. ContextDesk never
writes a skill's files (they stay as the user's other tools wrote them); "Open folder" is the way
to change them. Characters a reader would not see (zero-width, bidi overrides, tag characters) are
shown as markers (⟨U+200B⟩), so what the model reads is all on the page."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from agent_core.agent.skill_files.hidden_text import mark_unseen
from desktop.controllers.skill_actions import MAX_SKILL_VIEW_BYTES, SkillFileText
from desktop.theme import colors

__all__ = ["SkillFileDialog", "marked_note"]


def marked_note(count: int) -> str:
    """Says that ``count`` invisible characters are shown as markers ("" for none)."""
    if not count:
        return ""
    return (
        f"⚠ This text holds {count:,} character{'s' if count != 1 else ''} a reader would not see "
        "(zero-width, bidi overrides, tag characters or control characters), shown here as ⟨U+…⟩. "
        "The model reads them as they are; if you did not expect them, do not trust the text."
    )


class SkillFileDialog(QDialog):
    def __init__(self, file: SkillFileText, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        folder = file.path.parent
        self.setWindowTitle(f"{folder.name}/{file.path.name} — ContextDesk")
        layout = QVBoxLayout(self)
        where = QLabel(str(file.path))
        where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        where.setWordWrap(True)
        layout.addWidget(where)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        text, hidden = mark_unseen(file.text)
        self.hidden_note = QLabel(marked_note(hidden))
        self.hidden_note.setWordWrap(True)
        self.hidden_note.setStyleSheet(
            f"background-color: {colors().warning_background}; padding: 6px; border-radius: 6px;"
        )
        self.hidden_note.setVisible(hidden > 0)
        layout.addWidget(self.hidden_note)
        if file.truncated:
            text += f"\n… [cut: the file is longer than {MAX_SKILL_VIEW_BYTES // 1024:,} KB; open the folder to read it all]"
        self.text.setPlainText(text)
        layout.addWidget(self.text, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        open_folder = buttons.addButton("Open folder", QDialogButtonBox.ButtonRole.ActionRole)
        open_folder.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))))
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(760, 600)
