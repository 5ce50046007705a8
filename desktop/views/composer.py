"""The message box: Enter sends, Shift+Enter breaks the line, ``@`` and ``/`` offer completions."""

from __future__ import annotations

from PySide6.QtCore import QStringListModel, Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import QAbstractItemView, QCompleter, QPlainTextEdit, QWidget

__all__ = ["COMMANDS", "Composer"]

# Slash commands and what they do.
COMMANDS: dict[str, str] = {
    "/context": "View Context of the last reply",
    "/compact": "summarize the older turns of this chat now",
    "/ref": "add a reference to this chat: /ref NAME",
    "/rule": "add a rule to this chat: /rule NAME",
    "/new": "start a new chat",
    "/prompt": "insert a tool server's prompt into the message box: /prompt [NAME]",
}


class Composer(QPlainTextEdit):
    submitted = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPlaceholderText(
            "Message — Enter sends, Shift+Enter new line, @ adds rules and references, / commands"
        )
        self.setTabChangesFocus(True)
        self._mentions: list[str] = []
        self._completions = QStringListModel(self)
        self.completer = QCompleter(self._completions, self)
        self.completer.setWidget(self)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.completer.activated.connect(self.insert_completion)
        self.document().contentsChanged.connect(self._fit)
        self._fit()

    def _popup(self) -> QAbstractItemView:
        popup = self.completer.popup()
        assert popup is not None  # QCompleter creates its popup on first use; the stubs allow None
        return popup

    def set_mentions(self, names: list[str]) -> None:
        """What ``@`` offers, as typed: ``@rule:name`` and ``@ref:name``."""
        self._mentions = names

    def _fit(self) -> None:
        lines = max(1, min(8, int(self.document().size().height())))
        height = self.fontMetrics().lineSpacing() * lines + 16
        self.setFixedHeight(max(height, 44))

    def _current_word(self) -> tuple[str, QTextCursor]:
        cursor = self.textCursor()
        block_text = cursor.block().text()[: cursor.positionInBlock()]
        start = max(block_text.rfind(" "), block_text.rfind("\t")) + 1
        word = block_text[start:]
        select = QTextCursor(cursor)
        select.movePosition(QTextCursor.MoveOperation.Left, QTextCursor.MoveMode.KeepAnchor, len(word))
        return word, select

    def _update_popup(self) -> None:
        word, _ = self._current_word()
        cursor = self.textCursor()
        at_start = cursor.blockNumber() == 0 and cursor.block().text()[: cursor.positionInBlock()] == word
        if word.startswith("@"):
            options = self._mentions
        elif word.startswith("/") and at_start:
            options = list(COMMANDS)
        else:
            self._popup().hide()
            return
        self._completions.setStringList(options)
        self.completer.setCompletionPrefix(word)
        if self.completer.completionCount() == 0:
            self._popup().hide()
            return
        rect = self.cursorRect()
        rect.setWidth(max(240, self._popup().sizeHintForColumn(0) + 24))
        self.completer.complete(rect)

    def insert_completion(self, text: str) -> None:
        _, select = self._current_word()
        select.insertText(text + " ")
        self.setTextCursor(select)
        self._popup().hide()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        popup = self._popup()
        key = event.key()
        if popup.isVisible() and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab):
            index = popup.currentIndex()
            if not index.isValid():
                index = self.completer.completionModel().index(0, 0)
            self.insert_completion(str(index.data()))
            return
        if popup.isVisible() and key == Qt.Key.Key_Escape:
            popup.hide()
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (
            event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            text = self.toPlainText().strip()
            if text:
                self.submitted.emit(text)
            return
        super().keyPressEvent(event)
        if (
            event.text() and (event.text().isprintable() or key == Qt.Key.Key_Backspace)
        ) or key == Qt.Key.Key_Backspace:
            self._update_popup()
