"""Moving through a chat by keyboard without Tab visiting every button of every message.

The transcript is one Tab stop. Inside it, Up and Down move between messages (Home and End to
the first and last), Left and Right between the buttons of one message (Copy, Edit, View
Context…), Enter or Space presses the button, Escape goes back to the message, and Enter on a
reply opens its View Context. Tab and Shift+Tab leave the transcript for the next or previous
part of the window. A waiting approval, the welcome's buttons and text being edited keep their
own keys.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractButton, QAbstractScrollArea, QTextBrowser, QWidget

__all__ = ["TranscriptKeys"]

_MOVES = {Qt.Key.Key_Up: -1, Qt.Key.Key_Down: 1}


class TranscriptKeys(QObject):
    """Installed on every row widget of a transcript and on its buttons."""

    def __init__(
        self,
        view: QAbstractScrollArea,
        rows: Callable[[], Sequence[QWidget]],
        keeps_own_keys: Callable[[QWidget], bool],
        activate: Callable[[QWidget], bool],
    ) -> None:
        """``rows``: the row widgets in order; ``keeps_own_keys``: rows whose keys are their own
        (a waiting approval); ``activate``: Enter on a row (True: it did something)."""
        super().__init__(view)
        self.view = view
        self._rows = rows
        self._keeps_own_keys = keeps_own_keys
        self._activate = activate
        self.current: QWidget | None = None  # the row the keyboard was last on

    def attach(self, row: QWidget) -> None:
        """Make ``row`` reachable by arrows, not by Tab, and its buttons too."""
        if not self._keeps_own_keys(row):
            row.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        row.installEventFilter(self)
        for button in self._buttons_of(row, visible_only=False):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            button.installEventFilter(self)
        for text in row.findChildren(QTextBrowser):
            text.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # selectable by mouse, not a Tab stop
            text.installEventFilter(self)

    def enter(self, reason: Qt.FocusReason) -> bool:
        """The transcript got focus: hand it to a waiting approval, else the row the keyboard was
        last on, else the newest row. False when there are no rows."""
        rows = self._reachable()
        if not rows:
            return False
        waiting = [row for row in rows if self._keeps_own_keys(row)]
        target = waiting[-1] if waiting else self.current if self.current in rows else rows[-1]
        self._focus(target, reason)
        return True

    # --- the filter ---------------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(watched, QAbstractButton):
            # Esc on a message's button goes back to the message, not to "Stop the reply".
            assert isinstance(event, QKeyEvent)
            if event.key() == Qt.Key.Key_Escape and self._row_of(watched) is not None:
                event.accept()
                return True
            return False
        if event.type() != QEvent.Type.KeyPress or not isinstance(watched, QWidget):
            return False
        assert isinstance(event, QKeyEvent)
        row = self._row_of(watched)
        if row is None:
            return False
        key = Qt.Key(event.key())
        modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if key in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab) and modifiers in (
            Qt.KeyboardModifier.NoModifier,
            Qt.KeyboardModifier.ShiftModifier,
        ):
            self.current = row
            self.leave(forward=key == Qt.Key.Key_Tab and modifiers == Qt.KeyboardModifier.NoModifier)
            return True
        if self._keeps_own_keys(row) or modifiers != Qt.KeyboardModifier.NoModifier:
            return False
        if isinstance(watched, QTextBrowser):
            return False  # arrows move its caret; Tab (above) still leaves
        if key in _MOVES:
            return self._move_row(row, _MOVES[key])
        if key in (Qt.Key.Key_Home, Qt.Key.Key_End) and watched is row:
            rows = self._reachable()
            self._focus(rows[0] if key == Qt.Key.Key_Home else rows[-1], Qt.FocusReason.OtherFocusReason)
            return True
        if key in (Qt.Key.Key_Left, Qt.Key.Key_Right):
            return self._move_button(row, watched, -1 if key == Qt.Key.Key_Left else 1)
        if key == Qt.Key.Key_Escape and watched is not row:
            self._focus(row, Qt.FocusReason.OtherFocusReason)
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if isinstance(watched, QAbstractButton):
                watched.click()
                return True
            return watched is row and self._activate(row)
        return False

    # --- moving -------------------------------------------------------------------------------

    def leave(self, *, forward: bool) -> None:
        """Focus the next (or previous) Tab stop of the window outside the transcript."""
        widget: QWidget | None = self.view
        while True:
            assert widget is not None
            widget = widget.nextInFocusChain() if forward else widget.previousInFocusChain()
            if widget is None or widget is self.view:
                return  # nothing else takes focus
            if self.view.isAncestorOf(widget):
                continue
            if _is_tab_stop(widget):
                reason = Qt.FocusReason.TabFocusReason if forward else Qt.FocusReason.BacktabFocusReason
                widget.setFocus(reason)
                return

    def _move_row(self, row: QWidget, step: int) -> bool:
        rows = self._reachable()
        if row not in rows:
            return False
        index = rows.index(row) + step
        if 0 <= index < len(rows):
            self._focus(rows[index], Qt.FocusReason.OtherFocusReason)
        return True  # at either end the key is used up: the view must not scroll away

    def _move_button(self, row: QWidget, watched: QWidget, step: int) -> bool:
        stops: list[QWidget] = [row, *self._buttons_of(row, visible_only=True)]
        if watched not in stops:
            return False
        index = stops.index(watched) + step
        if 0 <= index < len(stops):
            self._focus(stops[index], Qt.FocusReason.OtherFocusReason, row=row)
        return True

    def _focus(self, widget: QWidget, reason: Qt.FocusReason, *, row: QWidget | None = None) -> None:
        self.current = row or widget
        widget.setFocus(reason)
        ensure_visible = getattr(self.view, "ensureWidgetVisible", None)
        if ensure_visible is not None:
            ensure_visible(widget, 0, 24)

    # --- looking ------------------------------------------------------------------------------

    def _reachable(self) -> list[QWidget]:
        return [
            row
            for row in self._rows()
            if row.isVisible() and (row.focusPolicy() != Qt.FocusPolicy.NoFocus or self._keeps_own_keys(row))
        ]

    def _row_of(self, widget: QWidget) -> QWidget | None:
        rows = self._rows()
        current: QWidget | None = widget
        while current is not None and current is not self.view:
            if current in rows:
                return current
            current = current.parentWidget()
        return None

    @staticmethod
    def _buttons_of(row: QWidget, *, visible_only: bool) -> list[QWidget]:
        buttons = [b for b in row.findChildren(QAbstractButton) if not visible_only or b.isVisibleTo(row)]

        def reading_order(button: QWidget) -> tuple[int, int]:
            corner = button.mapTo(row, button.rect().topLeft())
            return corner.y() // 8, corner.x()  # a row of buttons shares its line within 8 px

        return sorted(buttons, key=reading_order)


def _is_tab_stop(widget: QWidget) -> bool:
    return (
        bool(widget.focusPolicy().value & Qt.FocusPolicy.TabFocus.value)
        and widget.isVisible()
        and widget.isEnabled()
    )
