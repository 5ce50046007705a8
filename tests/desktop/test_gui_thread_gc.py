"""Reference cycles are collected on the GUI thread, never on the core's thread."""

from __future__ import annotations

import gc
import threading

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from desktop.gui_thread_gc import GuiThreadGarbageCollector, collect_on_gui_thread
from tests.support.desktop_driver import WAIT_MS


class Cycle:
    """Part of a reference cycle; records the thread that destroys it."""

    def __init__(self, died_on: list[str]) -> None:
        self.me = self
        self.died_on = died_on

    def __del__(self) -> None:
        self.died_on.append(threading.current_thread().name)


def test_a_cycle_made_on_the_core_thread_dies_on_the_gui_thread(qtbot: QtBot, desktop: DesktopApp) -> None:
    assert not gc.isenabled()  # automatic collection is off: it could run on any thread
    died_on: list[str] = []

    def make_garbage() -> None:
        for _ in range(2000):  # past the young generation's threshold
            Cycle(died_on)

    done = threading.Event()
    desktop.bridge.call(make_garbage, on_result=lambda _: done.set())
    qtbot.waitUntil(done.is_set, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: len(died_on) == 2000, timeout=WAIT_MS)
    assert set(died_on) == {threading.main_thread().name}


def test_the_collector_is_installed_once_and_can_hand_collection_back(qtbot: QtBot) -> None:
    app = QApplication.instance()
    assert app is not None
    collector = collect_on_gui_thread(app)
    assert collect_on_gui_thread(app) is collector
    assert len(app.findChildren(GuiThreadGarbageCollector)) == 1
    collector.stop()
    try:
        assert gc.isenabled()
    finally:
        collector.deleteLater()
        qtbot.waitUntil(lambda: not app.findChildren(GuiThreadGarbageCollector), timeout=WAIT_MS)


def test_what_the_app_built_at_start_is_frozen_out_of_later_collections(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    # Full collections run on the GUI thread: once started, they scan only what came after.
    qtbot.waitUntil(lambda: gc.get_freeze_count() > 0, timeout=WAIT_MS)
    frozen = gc.get_freeze_count()
    collector = collect_on_gui_thread(QApplication.instance())  # type: ignore[arg-type]
    collector.freeze_startup()  # once per process: a second agent or window freezes nothing more
    assert gc.get_freeze_count() == frozen
