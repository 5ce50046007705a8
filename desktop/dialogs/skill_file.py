"""A skill's SKILL.md, read-only: what the model reads when it loads the skill. ContextDesk never
writes a skill's files (they stay as the user's other tools wrote them); "Open folder" is the way
to change them."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QFontDatabase
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from desktop.controllers.skill_actions import MAX_SKILL_VIEW_BYTES, SkillFileText

__all__ = ["SkillFileDialog"]


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
        text = file.text
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
