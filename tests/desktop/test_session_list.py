"""The chats list driven through its widgets: several chats, search, rename, delete and undo."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from desktop.models.sessions import Column, Role
from tests.support.desktop_driver import WAIT_MS, idle, screenshot, scripted, send, settle


def titles(app: DesktopApp) -> list[str]:
    model = app.window.sessions
    return [model.index(r, Column.TITLE).data() for r in range(model.rowCount())]


def make_two_chats(qtbot: QtBot, app: DesktopApp) -> None:
    scripted(app).enqueue_reply("Paris is the capital.")
    send(qtbot, app, "What is the capital of France?")
    qtbot.waitUntil(lambda: idle(app), timeout=WAIT_MS)
    app.window.new_chat()  # Ctrl+N
    qtbot.waitUntil(lambda: app.window.tabs.count() == 2, timeout=WAIT_MS)
    scripted(app).enqueue_reply("Bananas are yellow.")
    send(qtbot, app, "What colour are bananas?")
    qtbot.waitUntil(lambda: idle(app), timeout=WAIT_MS)


def test_chats_are_listed_newest_first_and_open_as_tabs(qtbot: QtBot, desktop: DesktopApp) -> None:
    make_two_chats(qtbot, desktop)
    assert titles(desktop) == ["What colour are bananas?", "What is the capital of France?"]
    panel = desktop.window.session_panel
    first = desktop.window.sessions.index(1, 0)
    panel.open_requested.emit(first.data(Role.SESSION_ID))
    qtbot.waitUntil(
        lambda: desktop.window.current_controller().title.startswith("What is the capital"), timeout=WAIT_MS
    )  # type: ignore[union-attr]
    assert desktop.window.tabs.count() == 2  # switching reuses the open tab
    screenshot(desktop.window, "two_chats")


def test_search_finds_chats_by_message_text_and_clearing_shows_all(qtbot: QtBot, desktop: DesktopApp) -> None:
    make_two_chats(qtbot, desktop)
    panel = desktop.window.session_panel
    qtbot.keyClick(desktop.window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(panel.search, "Paris")
    qtbot.waitUntil(lambda: titles(desktop) == ["What is the capital of France?"], timeout=WAIT_MS)
    snippet = desktop.window.sessions.index(0, 0).data(Role.SNIPPET)
    assert "Paris" in snippet
    screenshot(desktop.window, "search")
    panel.search.clear()
    qtbot.waitUntil(lambda: len(titles(desktop)) == 2, timeout=WAIT_MS)


def test_a_search_that_matches_nothing_says_so_and_can_be_cleared(qtbot: QtBot, desktop: DesktopApp) -> None:
    make_two_chats(qtbot, desktop)
    window = desktop.window
    panel = window.session_panel
    qtbot.keyClicks(panel.search, "xyzzy")
    qtbot.waitUntil(lambda: panel.no_match.isVisibleTo(window), timeout=WAIT_MS)
    assert panel.no_match.text() == "No chats match “xyzzy”."
    assert not panel.table.isVisibleTo(window)
    window.resize(1024, 700)
    screenshot(window, "search_no_match")
    qtbot.mouseClick(panel.clear_search_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(titles(desktop)) == 2 and panel.table.isVisibleTo(window), timeout=WAIT_MS)
    assert panel.search.text() == "" and not panel.no_match.isVisibleTo(window)


def test_a_chat_renamed_in_the_list_keeps_its_new_title(qtbot: QtBot, desktop: DesktopApp) -> None:
    make_two_chats(qtbot, desktop)
    model = desktop.window.sessions
    model.setData(model.index(0, Column.TITLE), "Fruit")
    controller = desktop.window.current_controller()
    assert controller is not None
    qtbot.waitUntil(
        lambda: desktop.window.tabs.tabText(desktop.window.tabs.currentIndex()) == "Fruit", timeout=WAIT_MS
    )
    assert controller.session.store.session(controller.id).title == "Fruit"  # type: ignore[union-attr]


def test_renaming_a_chat_keeps_its_place_in_the_list(qtbot: QtBot, desktop: DesktopApp) -> None:
    make_two_chats(qtbot, desktop)
    model = desktop.window.sessions
    older = model.index(1, 0).data(Role.SESSION_ID)
    store = desktop.host.workspace.store  # type: ignore[union-attr]
    model.setData(model.index(1, Column.TITLE), "Geography")
    qtbot.waitUntil(lambda: store.session(older).title == "Geography", timeout=WAIT_MS)  # type: ignore[union-attr]
    assert titles(desktop) == ["What colour are bananas?", "Geography"]
    # Listed again from the saved chats (as when a search is cleared, or at the next start).
    with qtbot.waitSignal(model.modelReset, timeout=WAIT_MS):
        desktop.window.session_panel.search_changed.emit("")
    assert titles(desktop) == ["What colour are bananas?", "Geography"]


def test_a_deleted_chat_can_be_undone_and_is_gone_for_good_otherwise(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    make_two_chats(qtbot, desktop)
    window = desktop.window
    store = desktop.host.workspace.store  # type: ignore[union-attr]
    newest = window.sessions.index(0, 0).data(Role.SESSION_ID)
    window.chat_list.delete(newest)
    assert titles(desktop) == ["What is the capital of France?"]
    assert (
        window.undo_note.isVisibleTo(window)
        and window.undo_note.said() == "Deleted “What colour are bananas?”."
    )
    window.undo_note.linkActivated.emit("undo")  # the note's Undo link
    assert len(titles(desktop)) == 2 and store.session(newest) is not None
    assert not window.undo_note.isVisibleTo(window)

    window.chat_list.delete(newest)
    window.undo_note.flush()  # what the timeout (or closing the window) does
    qtbot.waitUntil(lambda: store.session(newest) is None, timeout=WAIT_MS)


def test_deleting_a_chat_moves_nothing_and_leaves_time_to_undo_with_ctrl_z(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    make_two_chats(qtbot, desktop)
    window = desktop.window
    window.resize(1024, 700)
    window.show()
    window.activateWindow()  # keys go to the active window only
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=WAIT_MS)
    settle()
    store = desktop.host.workspace.store  # type: ignore[union-attr]
    table = window.session_panel.table
    layout_before = (window.splitter.geometry(), window.statusBar().geometry())
    newest = window.sessions.index(0, 0).data(Role.SESSION_ID)
    table.setFocus()
    table.selectRow(0)
    qtbot.keyClick(table, Qt.Key.Key_Delete)
    assert titles(desktop) == ["What is the capital of France?"]
    settle()
    assert (window.splitter.geometry(), window.statusBar().geometry()) == layout_before
    assert window.undo_note.isVisible() and window.undo_note.remaining_ms() > 15_000
    screenshot(window, "deleted_with_undo")

    qtbot.keyClick(table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert len(titles(desktop)) == 2 and not window.undo_note.isVisible()
    window.undo_note.flush()  # nothing waits: nothing happens
    assert store.session(newest) is not None
