"""The message box: Enter sends, Shift+Enter breaks the line, ``@`` and ``/`` offer completions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QKeyEvent, QStandardItem, QStandardItemModel, QTextCursor
from PySide6.QtWidgets import QAbstractItemView, QCompleter, QPlainTextEdit, QWidget

__all__ = ["COMMANDS", "Composer"]

# The slash commands the desktop answers itself, and what they do. The commands the core answers
# (``/run``: a chat's MessageCommands) are added to the list from the chat's own, not typed here.
COMMANDS: dict[str, str] = {
    "/context": "View Context of the last reply",
    "/compact": "summarize the older turns of this chat now",
    "/ref": "add a reference to this chat: /ref NAME",
    "/rule": "add a rule to this chat: /rule NAME",
    "/new": "start a new chat",
    "/prompt": "insert a tool server's prompt into the message box: /prompt [NAME]",
    "/remember": "save a memory of this agent at once, in your words: /remember TEXT",
}


NAME_ROLE = Qt.ItemDataRole.UserRole + 1  # what is matched: the name without "@rule:" or "/"
INSERT_ROLE = Qt.ItemDataRole.UserRole + 2  # what goes into the message


def _mention_name(text: str) -> str:
    """ "@rule:pirate" -> "pirate"; "@pi" -> "pi" (what the user types is matched against names)."""
    body = text[1:]
    for kind in ("rule:", "ref:"):
        if body.startswith(kind):
            return body[len(kind) :]
    return body


def _insert_text(index: QModelIndex | QPersistentModelIndex) -> str:
    return str(index.data(INSERT_ROLE) or index.data(Qt.ItemDataRole.DisplayRole) or "")


class Composer(QPlainTextEdit):
    submitted = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")  # the theme gives it a border that shows in both themes
        self.setPlaceholderText(
            "Message — Enter sends, Shift+Enter new line, @ adds rules and references, / commands"
        )
        self.setTabChangesFocus(True)
        self._mentions: dict[str, str] = {}  # "@rule:name" -> its description
        self._commands: dict[str, str] = dict(COMMANDS)  # "/name" -> what it does
        self._completions = QStandardItemModel(self)
        self.completer = QCompleter(self._completions, self)
        self.completer.setWidget(self)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        # Matched on the name alone ("@pi" finds "@rule:pirate"), shown with its description.
        self.completer.setCompletionRole(NAME_ROLE)
        # The index overload: the text overload would give the name alone, ambiguous across kinds.
        picked = self.completer.activated[QModelIndex]  # type: ignore[index]  # PySide6's stubs lack overloads
        picked.connect(lambda index: self.insert_completion(_insert_text(index)))
        self.document().contentsChanged.connect(self._fit)
        self._fit()

    def _popup(self) -> QAbstractItemView:
        popup = self.completer.popup()
        assert popup is not None  # QCompleter creates its popup on first use; the stubs allow None
        return popup

    def set_mentions(self, mentions: Mapping[str, str] | Sequence[str]) -> None:
        """What ``@`` offers: ``@rule:name`` and ``@ref:name``, with their descriptions."""
        self._mentions = dict(mentions) if isinstance(mentions, Mapping) else dict.fromkeys(mentions, "")

    def add_commands(self, commands: Mapping[str, str]) -> None:
        """More of what ``/`` offers: commands the core answers (``/run``), with what they do."""
        self._commands.update(commands)

    def commands(self) -> dict[str, str]:
        """What ``/`` offers: every command and what it does."""
        return dict(self._commands)

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
            options, prefix = self._mentions, _mention_name(word)
        elif word.startswith("/") and at_start:
            options, prefix = self._commands, word[1:]
        else:
            self._popup().hide()
            return
        self._completions.clear()
        for text, description in options.items():
            item = QStandardItem(f"{text}  —  {description}" if description else text)
            item.setData(_mention_name(text) if text.startswith("@") else text[1:], NAME_ROLE)
            item.setData(text, INSERT_ROLE)
            item.setToolTip(description)
            self._completions.appendRow(item)
        self.completer.setCompletionPrefix(prefix)
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
            self.insert_completion(_insert_text(index))
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
