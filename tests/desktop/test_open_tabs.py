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
