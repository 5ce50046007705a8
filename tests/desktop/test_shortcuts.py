"""The window's keyboard shortcuts, pressed on the real window: new chat, search, message box, View Context."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from desktop.dialogs.view_context import ViewContextDialog
from tests.support.desktop_driver import WAIT_MS, idle, scripted, send

CTRL = Qt.KeyboardModifier.ControlModifier


def press(qtbot: QtBot, app: DesktopApp, key: Qt.Key) -> None:
    """Ctrl+``key`` where the user's focus is, as a real key press would arrive."""
    target = QApplication.focusWidget() or app.window
    qtbot.keyClick(target, key, CTRL)


def activate(qtbot: QtBot, app: DesktopApp) -> None:
    app.window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is app.window, timeout=WAIT_MS)


def test_ctrl_k_searches_and_ctrl_l_goes_back_to_the_message_box(qtbot: QtBot, desktop: DesktopApp) -> None:
    activate(qtbot, desktop)
    view = desktop.window.current_view()
    assert view is not None
    qtbot.waitUntil(view.composer.hasFocus, timeout=WAIT_MS)

    press(qtbot, desktop, Qt.Key.Key_K)
    search = desktop.window.session_panel.search
    qtbot.waitUntil(search.hasFocus, timeout=WAIT_MS)
    qtbot.keyClicks(search, "notes")
    assert search.text() == "notes"

    press(qtbot, desktop, Qt.Key.Key_L)
    qtbot.waitUntil(view.composer.hasFocus, timeout=WAIT_MS)


def test_ctrl_n_opens_a_new_chat_only_when_the_current_one_is_used(qtbot: QtBot, desktop: DesktopApp) -> None:
    activate(qtbot, desktop)
    first = desktop.window.current_controller()
    press(qtbot, desktop, Qt.Key.Key_N)  # the current chat is empty: it is reused, not duplicated
    assert desktop.window.tabs.count() == 1 and desktop.window.current_controller() is first

    scripted(desktop).enqueue_reply("Hi.")
    send(qtbot, desktop, "hello")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    press(qtbot, desktop, Qt.Key.Key_N)
    qtbot.waitUntil(lambda: desktop.window.tabs.count() == 2, timeout=WAIT_MS)
    second = desktop.window.current_controller()
    assert second is not None and second is not first
    view = desktop.window.current_view()
    assert view is not None
    qtbot.waitUntil(view.composer.hasFocus, timeout=WAIT_MS)


def test_ctrl_i_opens_view_context_of_the_last_reply(qtbot: QtBot, desktop: DesktopApp) -> None:
    activate(qtbot, desktop)
    view = desktop.window.current_view()
    assert view is not None
    press(qtbot, desktop, Qt.Key.Key_I)  # no reply yet: said inline, no dialog
    assert "send a message first" in view.inline_error.text() and not view.inline_error.isHidden()
    assert desktop.window.dialogs.last_context_dialog is None

    scripted(desktop).enqueue_reply("First.")
    send(qtbot, desktop, "one")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    scripted(desktop).enqueue_reply("Second.")
    send(qtbot, desktop, "two")
    qtbot.waitUntil(lambda: idle(desktop) and view.controller.conversation.rowCount() == 4, timeout=WAIT_MS)

    press(qtbot, desktop, Qt.Key.Key_I)
    qtbot.waitUntil(lambda: desktop.window.dialogs.last_context_dialog is not None, timeout=WAIT_MS)
    dialog = desktop.window.dialogs.last_context_dialog
    assert isinstance(dialog, ViewContextDialog)
    last = view.controller.last_reply_entry()
    assert last is not None and dialog.context is last.context
    assert dialog.context.items[0].ref.name == "clear-answers"
    dialog.close()
