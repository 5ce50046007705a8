"""View Context on a small screen: the dialog fits it, its columns scroll, and Close is on screen."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from tests.support.desktop_driver import ask_with_selection, open_context


def test_view_context_fits_a_small_screen_and_close_stays_reachable(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    small = next(s for s in QGuiApplication.screens() if s.name() == "small")
    available = small.availableGeometry()
    ask_with_selection(qtbot, desktop)
    window = desktop.window
    window.setScreen(small)
    window.setGeometry(available.adjusted(20, 40, -20, -20))
    dialog = open_context(qtbot, desktop)
    qtbot.waitExposed(dialog)
    assert dialog.screen() is small
    assert available.contains(dialog.frameGeometry()), (dialog.frameGeometry(), available)
    buttons = dialog.findChild(QDialogButtonBox)
    assert buttons is not None
    close = buttons.button(QDialogButtonBox.StandardButton.Close)
    assert close is not None and close.isVisible()
    corner = close.mapToGlobal(close.rect().topLeft())
    assert available.contains(QRect(corner, close.size()))
    # What does not fit scrolls, inside the dialog, and the dialog cannot be made taller than the screen.
    assert dialog.minimumSizeHint().height() <= available.height()
    assert dialog.body.verticalScrollBar() is not None
    dialog.close()
