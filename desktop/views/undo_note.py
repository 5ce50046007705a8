"""An action that can still be taken back, said in the status bar: "Deleted “Notes”. Undo (Ctrl+Z)".

In the status bar rather than a banner, so showing it moves nothing in the window. It lasts
``UNDO_MS`` (long enough to notice and reach) or until the next such action, then the action is
carried out.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QWidget

from desktop.theme import colors

__all__ = ["UNDO_MS", "UndoNote", "short_title"]

UNDO_MS = 20_000
TITLE_CHARS = 48  # a long chat title is cut, so the note never widens the window


class UndoNote(QLabel):
    pending_changed = Signal(bool)  # an action can be undone now (Ctrl+Z follows it)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setTextInteractionFlags(
            Qt.TextInteractionFlag.LinksAccessibleByMouse | Qt.TextInteractionFlag.LinksAccessibleByKeyboard
        )
        self.linkActivated.connect(lambda _link: self.undo())
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.flush)
        self._undo: Callable[[], None] | None = None
        self._commit: Callable[[], None] | None = None
        self._said = ""
        self.hide()

    @property
    def pending(self) -> bool:
        return self._commit is not None

    def said(self) -> str:
        """The note's words without the link ("" when nothing waits)."""
        return self._said if self.pending else ""

    def remaining_ms(self) -> int:
        return self._timer.remainingTime() if self.pending else 0

    def offer(
        self, text: str, *, undo: Callable[[], None], commit: Callable[[], None], timeout_ms: int = UNDO_MS
    ) -> None:
        """Say ``text`` with an Undo link; ``commit`` runs when the time is up or the next offer comes."""
        self.flush()
        self._undo, self._commit, self._said = undo, commit, text
        self.setText(f'{escape(text)} <a href="undo" style="color: {colors().link};">Undo</a> (Ctrl+Z)')
        self._timer.start(timeout_ms)
        self.show()
        self.pending_changed.emit(True)

    def undo(self) -> bool:
        """Take the action back; False when nothing waits."""
        undo = self._undo
        if undo is None:
            return False
        self._clear()
        undo()
        return True

    def flush(self) -> None:
        """Carry out what waits now (the time is up, another action came, the window closes)."""
        commit = self._commit
        if commit is None:
            return
        self._clear()
        commit()

    def forget(self) -> None:
        """Neither undo nor carry out (its agent was closed): what it would have removed stays."""
        self._clear()

    def _clear(self) -> None:
        was_pending = self.pending
        self._undo = self._commit = None
        self._timer.stop()
        self.hide()
        if was_pending:
            self.pending_changed.emit(False)


def short_title(title: str) -> str:
    return title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…"
