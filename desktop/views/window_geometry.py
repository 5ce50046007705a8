"""Window sizes that fit the screen.

On a first start a window takes its preferred size, but at most 90% of the screen's available
area, centred on it. A remembered geometry wins, but is pulled back inside the screen it is on
(a laptop unplugged from a large monitor must not open a window wider than itself).
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QEvent, QObject, QPoint, QRect, QSize
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget

__all__ = [
    "SCREEN_FRACTION",
    "clamp_geometry",
    "fit_size",
    "initial_geometry",
    "keep_on_screen",
    "place_window",
]

SCREEN_FRACTION = 0.9


def initial_geometry(available: QRect, preferred: QSize, fraction: float = SCREEN_FRACTION) -> QRect:
    """``preferred``, shrunk to ``fraction`` of ``available`` where it is larger, centred in it."""
    width = min(preferred.width(), int(available.width() * fraction))
    height = min(preferred.height(), int(available.height() * fraction))
    rect = QRect(0, 0, width, height)
    rect.moveCenter(available.center())
    return rect


def clamp_geometry(geometry: QRect, available: QRect) -> QRect:
    """``geometry`` made no larger than ``available`` and moved (not shrunk further) to lie inside it."""
    width = min(geometry.width(), available.width())
    height = min(geometry.height(), available.height())
    left = min(max(geometry.left(), available.left()), available.left() + available.width() - width)
    top = min(max(geometry.top(), available.top()), available.top() + available.height() - height)
    return QRect(left, top, width, height)


def _screen_of(window: QWidget, point: QPoint | None = None) -> QScreen:
    screen = QGuiApplication.screenAt(point) if point is not None else None
    if screen is None:
        parent = window.parentWidget()
        screen = parent.screen() if parent is not None else window.screen()
    return screen or QGuiApplication.primaryScreen()


def keep_on_screen(window: QWidget) -> None:
    """Shrink and move ``window`` so that its frame lies inside the screen it is (mostly) on."""
    if window.isMaximized() or window.isFullScreen():
        return
    frame = window.frameGeometry()
    available = _screen_of(window, frame.center()).availableGeometry()
    fitted = clamp_geometry(frame, available)
    if fitted == frame:
        return
    extra = QSize(frame.width() - window.width(), frame.height() - window.height())
    window.resize(fitted.width() - extra.width(), fitted.height() - extra.height())
    window.move(fitted.topLeft())


class _KeepOnScreenWhenShown(QObject):
    """Clamps once more at the first show: only then are the frame's title bar and borders known."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and isinstance(watched, QWidget) and watched.isWindow():
            watched.removeEventFilter(self)
            keep_on_screen(watched)
            self.deleteLater()
        return False


def place_window(window: QWidget, preferred: QSize, saved: object = None) -> None:
    """Give a top-level ``window`` a geometry that fits its screen.

    ``saved`` is what ``saveGeometry()`` returned in an earlier run (anything else is ignored): it
    is restored, then kept inside the screen it lands on. Without it the window gets
    :func:`initial_geometry` on its parent's screen (or the primary one)."""
    if isinstance(saved, QByteArray) and not saved.isEmpty() and window.restoreGeometry(saved):
        keep_on_screen(window)
        window.installEventFilter(_KeepOnScreenWhenShown(window))
        return
    parent = window.parentWidget()
    centre = parent.frameGeometry().center() if parent is not None and parent.isVisible() else None
    rect = initial_geometry(_screen_of(window, centre).availableGeometry(), preferred)
    window.resize(rect.size())
    window.move(rect.topLeft())  # move() places the frame; the 10% margin leaves room for it


def fit_size(window: QWidget, preferred: QSize) -> None:
    """Resize a dialog to ``preferred``, at most 90% of its screen; Qt centres it over its parent."""
    parent = window.parentWidget()
    centre = parent.frameGeometry().center() if parent is not None and parent.isVisible() else None
    window.resize(initial_geometry(_screen_of(window, centre).availableGeometry(), preferred).size())
