"""A strong focus ring around whatever the keyboard moved to.

Fusion marks a focused button with a faint dotted line that is easy to lose; keyboard users need
to see at a glance where Tab or an arrow key went. One QFocusFrame follows keyboard focus across
the app and paints a 2-pixel ring in the highlight colour around it. A mouse click moves focus
without a ring (as browsers' :focus-visible does): the pointer already shows where the user is.
Text boxes keep their own look (a caret and a highlighted frame).
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QFocusFrame,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

__all__ = ["FocusRing", "install_focus_ring"]

RING_WIDTH = 2
# Text boxes show their caret and Fusion's highlighted frame; a ring would only add noise.
_OWN_FOCUS_LOOK = (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox)


class FocusRing(QFocusFrame):
    """Paints the ring; QFocusFrame keeps it on top of and just outside the focused widget."""

    def __init__(self) -> None:
        super().__init__()
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen = QPen(self.palette().color(QPalette.ColorRole.Highlight), RING_WIDTH)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        inset = RING_WIDTH / 2
        painter.drawRoundedRect(self.rect().toRectF().adjusted(inset, inset, -inset, -inset), 5, 5)
        painter.end()


class _Follower(QObject):
    """Moves the ring to each widget that takes keyboard focus. QFocusFrame lives beside the
    widget it surrounds, so a closed window takes the ring with it: a new one is made then."""

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self._ring: FocusRing | None = None

    @property
    def ring(self) -> FocusRing:
        if self._ring is None or not shiboken6.isValid(self._ring):
            self._ring = FocusRing()
        return self._ring

    def follow(self, _old: QWidget | None, new: QWidget | None) -> None:
        ring = self.ring
        # Focus moved by a mouse press happens while the button is down: no ring then.
        by_mouse = QApplication.mouseButtons() != Qt.MouseButton.NoButton
        if new is None or by_mouse or isinstance(new, _OWN_FOCUS_LOOK) or new.isWindow():
            ring.setWidget(None)  # type: ignore[arg-type]
            ring.hide()
            return
        ring.setWidget(new)
        ring.show()
        ring.raise_()


_follower: _Follower | None = None


def install_focus_ring(app: QApplication) -> FocusRing:
    """Once per app; returns the ring (tests look at which widget it surrounds)."""
    global _follower
    if _follower is None or not shiboken6.isValid(_follower):
        _follower = _Follower(app)
        app.focusChanged.connect(_follower.follow)
    return _follower.ring
