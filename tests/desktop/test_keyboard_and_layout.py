"""Keyboard and layout: Tab visits the parts of the window (not every button of every message),
arrows move inside a chat, a strong ring shows where the keyboard is, the side panels fold away
and messages keep a readable width."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp, create_app
from desktop.theme import apply_theme
from desktop.views.conversation_view import readable_width
from desktop.views.focus_ring import install_focus_ring
from desktop.views.message_widgets import MessageWidget
from tests.support.desktop_driver import WAIT_MS, idle, screenshot, scripted, send, start


def focused() -> QWidget:
    widget = QApplication.focusWidget()
    assert widget is not None
    return widget


def press(qtbot: QtBot, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(focused(), key, modifier)


def chat_with_two_replies(qtbot: QtBot, app: DesktopApp) -> list[MessageWidget]:
    app.window.show()
    qtbot.waitExposed(app.window)
    # Keyboard focus goes to the active window only: wait until this one is it (an earlier
    # test's window may still be closing).
    app.window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is app.window, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: len(app.host.tools.tools()) == 4, timeout=WAIT_MS)
    for question, answer in [("first question", "First answer."), ("second question", "Second answer.")]:
        scripted(app).enqueue_reply(answer)
        send(qtbot, app, question)
        qtbot.waitUntil(lambda: idle(app), timeout=WAIT_MS)
    view = app.window.current_view()
    assert view is not None
    messages = [w for w in view.conversation.widgets() if isinstance(w, MessageWidget)]
    assert len(messages) == 4
    return messages


def test_tab_visits_the_parts_of_the_window_in_order_and_skips_message_buttons(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    messages = chat_with_two_replies(qtbot, desktop)
    window = desktop.window
    view = window.current_view()
    assert view is not None
    window.session_panel.focus_search()
    stops: list[QWidget] = []
    for _ in range(12):
        stops.append(focused())
        press(qtbot, Qt.Key.Key_Tab)
    assert stops[:9] == [
        window.session_panel.search,
        window.session_panel.new_button,
        window.session_panel.table,
        window.tabs.tabBar(),
        view.model_picker,
        messages[-1],  # the transcript is one stop: its newest message
        view.composer,
        view.send_button,
        window.side_tabs.tabBar(),
    ]
    assert not any(
        isinstance(stop, QAbstractButton) and view.conversation.isAncestorOf(stop) for stop in stops
    )

    # Shift+Tab walks back the same way, through the transcript as one stop.
    view.composer.setFocus(Qt.FocusReason.TabFocusReason)
    press(qtbot, Qt.Key.Key_Backtab)
    assert focused() is messages[-1]
    press(qtbot, Qt.Key.Key_Backtab)
    assert focused() is view.model_picker


def test_arrows_move_between_messages_and_their_buttons(qtbot: QtBot, desktop: DesktopApp) -> None:
    messages = chat_with_two_replies(qtbot, desktop)
    view = desktop.window.current_view()
    assert view is not None
    ring = install_focus_ring(QApplication.instance())  # type: ignore[arg-type]
    view.model_picker.setFocus(Qt.FocusReason.TabFocusReason)
    press(qtbot, Qt.Key.Key_Tab)
    newest = messages[-1]
    assert focused() is newest and ring.widget() is newest and ring.isVisible()

    press(qtbot, Qt.Key.Key_Up)
    assert focused() is messages[-2]  # the user's second question
    press(qtbot, Qt.Key.Key_Home)
    assert focused() is messages[0]
    press(qtbot, Qt.Key.Key_End)
    assert focused() is newest
    press(qtbot, Qt.Key.Key_Down)
    assert focused() is newest  # the end: the key is used up, nothing moves

    press(qtbot, Qt.Key.Key_Right)
    assert focused() is newest.copy_button and ring.widget() is newest.copy_button
    screenshot(desktop.window, "keyboard_message_button")
    for _ in range(6):
        press(qtbot, Qt.Key.Key_Right)
    assert focused() is newest.context_button  # the last button; Right stops there
    press(qtbot, Qt.Key.Key_Escape)
    assert focused() is newest

    # Enter on a reply opens its View Context; Enter on a button presses it.
    press(qtbot, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: desktop.window.dialogs.last_context_dialog is not None, timeout=WAIT_MS)
    dialog = desktop.window.dialogs.last_context_dialog
    assert dialog is not None
    dialog.close()

    # Tab leaves the transcript for the message box; coming back lands on the same message.
    newest.setFocus(Qt.FocusReason.OtherFocusReason)
    press(qtbot, Qt.Key.Key_Up)
    press(qtbot, Qt.Key.Key_Tab)
    assert focused() is view.composer
    press(qtbot, Qt.Key.Key_Backtab)
    assert focused() is messages[-2]

    # A mouse click moves focus without a ring: the pointer shows where the user is.
    qtbot.mouseClick(desktop.window.session_panel.new_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(view.model_picker, Qt.MouseButton.LeftButton)
    assert not ring.isVisible()


def test_side_panels_fold_away_and_come_back(qtbot: QtBot, desktop: DesktopApp) -> None:
    window = desktop.window
    window.show()
    window.resize(1024, 700)
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.width() <= 1100, timeout=WAIT_MS)
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    chats, side = view_menu.actions()
    assert chats.isChecked() and side.isChecked()
    centre = window.splitter.sizes()[1]

    side.trigger()
    chats.trigger()
    qtbot.waitUntil(
        lambda: window.splitter.sizes()[0] == 0 and window.splitter.sizes()[2] == 0, timeout=WAIT_MS
    )
    assert window.splitter.sizes()[1] > centre
    assert not chats.isChecked() and not side.isChecked()
    assert window.side_tabs.isHidden() or window.side_tabs.width() == 0
    screenshot(window, "panels_folded_1024x700")

    chats.trigger()
    qtbot.waitUntil(lambda: window.splitter.sizes()[0] > 100, timeout=WAIT_MS)
    assert chats.isChecked() and window.splitter.sizes()[2] == 0
    side.trigger()
    qtbot.waitUntil(lambda: window.splitter.sizes()[2] > 100, timeout=WAIT_MS)
    assert side.isChecked()
    # The chat itself never folds.
    assert not window.splitter.isCollapsible(1)


def test_messages_keep_a_readable_width_in_a_wide_window(qtbot: QtBot, desktop: DesktopApp) -> None:
    messages = chat_with_two_replies(qtbot, desktop)
    window = desktop.window
    window.resize(2400, 900)
    qtbot.waitUntil(lambda: window.width() >= 2000, timeout=WAIT_MS)
    window.set_panel_shown(0, False)
    window.set_panel_shown(2, False)
    view = window.current_view()
    assert view is not None
    qtbot.waitUntil(lambda: view.conversation.viewport().width() > 2000, timeout=WAIT_MS)
    limit = readable_width(view.conversation)
    assert 600 <= limit <= 1100
    reply = messages[-1]
    qtbot.waitUntil(lambda: 0 < reply.width() <= limit, timeout=WAIT_MS)
    # Centred: as much room on its left as on its right.
    left = reply.mapTo(view.conversation.viewport(), reply.rect().topLeft()).x()
    right = view.conversation.viewport().width() - left - reply.width()
    assert abs(left - right) <= 40
    # The message box sits under them, as wide as they are (give or take the Send button).
    composer_left = view.composer.mapTo(view, view.composer.rect().topLeft()).x()
    assert view.composer.width() <= limit + 80 and composer_left > 400
    screenshot(window, "messages_readable_width")


@pytest.fixture
def dark(qtbot: QtBot, agent_dir: Path) -> Iterator[DesktopApp]:
    app = start(qtbot, agent_dir)
    qt_app = create_app()
    apply_theme(qt_app, Qt.ColorScheme.Dark)  # before the messages are made: they take its colours
    try:
        yield app
    finally:
        app.close()
        apply_theme(qt_app, None)


def test_the_focus_ring_shows_in_the_dark_theme(qtbot: QtBot, dark: DesktopApp) -> None:
    messages = chat_with_two_replies(qtbot, dark)
    view = dark.window.current_view()
    assert view is not None
    view.model_picker.setFocus(Qt.FocusReason.TabFocusReason)
    press(qtbot, Qt.Key.Key_Tab)
    press(qtbot, Qt.Key.Key_Right)
    ring = install_focus_ring(QApplication.instance())  # type: ignore[arg-type]
    assert ring.widget() is messages[-1].copy_button and ring.isVisible()
    screenshot(dark.window, "keyboard_message_button_dark")
