"""The chats open in tabs when the app closes are open again, in order and with the same one
in front, when it starts; a tab the user closed stays closed."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from tests.support.desktop_driver import WAIT_MS, idle, scripted, send


def start(qtbot: QtBot, agent_dir: Path) -> DesktopApp:
    app = DesktopApp()
    app.start(agent_dir)
    qtbot.waitUntil(lambda: app.window.current_controller() is not None, timeout=WAIT_MS)
    return app


def open_titles(app: DesktopApp) -> list[str]:
    return [app.window.tabs.tabText(i) for i in range(app.window.tabs.count())]


def test_open_tabs_come_back_after_a_restart_and_closed_ones_do_not(qtbot: QtBot, agent_dir: Path) -> None:
    first = start(qtbot, agent_dir)
    try:
        for text in ("about tea", "about coffee", "about water"):
            if text != "about tea":
                tabs = first.window.tabs.count()
                first.window.new_chat()
                qtbot.waitUntil(lambda n=tabs: first.window.tabs.count() == n + 1, timeout=WAIT_MS)
            scripted(first).enqueue_reply("ok")
            send(qtbot, first, text)
            qtbot.waitUntil(lambda: idle(first), timeout=WAIT_MS)
        qtbot.waitUntil(
            lambda: open_titles(first) == ["about tea", "about coffee", "about water"], timeout=WAIT_MS
        )
        first.window.close_tab(2)  # "about water" is closed by the user
        first.window.tabs.setCurrentIndex(0)
    finally:
        first.close()

    second = start(qtbot, agent_dir)
    try:
        qtbot.waitUntil(lambda: open_titles(second) == ["about tea", "about coffee"], timeout=WAIT_MS)
        assert second.window.tabs.currentIndex() == 0
    finally:
        second.close()


def test_closing_the_only_chat_when_it_is_empty_keeps_it_and_lists_no_new_empty_chat(
    qtbot: QtBot, agent_dir: Path
) -> None:
    app = start(qtbot, agent_dir)
    try:
        window = app.window
        only = window.current_controller()
        assert only is not None and window.tabs.count() == 1
        listed = window.chat_list.model.rowCount()
        for _ in range(4):  # Ctrl+W, again and again
            window.close_tab(window.tabs.currentIndex())
        assert window.tabs.count() == 1 and window.current_controller() is only
        assert window.chat_list.model.rowCount() == listed
        workspace = window.workspace
        assert workspace is not None
        assert (
            len([s for s in workspace.store.sessions() if s.agent_path == str(workspace.agent.root)])
            == listed
        )

        # A chat with messages closes, and an empty one takes its place (the window is never empty).
        scripted(app).enqueue_reply("ok")
        send(qtbot, app, "about tea")
        qtbot.waitUntil(lambda: idle(app), timeout=WAIT_MS)
        window.close_tab(window.tabs.currentIndex())
        qtbot.waitUntil(
            lambda: window.tabs.count() == 1 and window.current_controller() is not only, timeout=WAIT_MS
        )
    finally:
        app.close()
