"""Windows fit the screen: a first start at most 90% of it and centred; a remembered geometry clamped."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QRect, QSize
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp, create_app
from desktop.settings import app_settings
from desktop.views.window_geometry import clamp_geometry, initial_geometry, place_window


def test_the_initial_geometry_is_the_preferred_size_when_the_screen_has_room() -> None:
    rect = initial_geometry(QRect(0, 0, 1920, 1080), QSize(1360, 860))
    assert rect.size() == QSize(1360, 860)
    assert rect.center() == QRect(0, 0, 1920, 1080).center()


def test_the_initial_geometry_takes_at_most_90_percent_of_a_small_screen_centred() -> None:
    available = QRect(100, 30, 1280, 690)  # e.g. a 1280x720 laptop with a taskbar, on a second screen
    rect = initial_geometry(available, QSize(1360, 860))
    assert rect.size() == QSize(1152, 621)
    assert available.contains(rect)
    assert abs(rect.center().x() - available.center().x()) <= 1
    assert abs(rect.center().y() - available.center().y()) <= 1


def test_a_remembered_geometry_too_large_or_off_screen_is_pulled_inside() -> None:
    available = QRect(0, 0, 1280, 690)
    assert clamp_geometry(QRect(-300, 500, 1600, 900), available) == QRect(0, 0, 1280, 690)
    assert clamp_geometry(QRect(900, 400, 800, 500), available) == QRect(480, 190, 800, 500)
    assert clamp_geometry(QRect(40, 50, 800, 500), available) == QRect(40, 50, 800, 500)


@pytest.fixture
def small_screen() -> QScreen:
    create_app()
    screen = next((s for s in QGuiApplication.screens() if s.name() == "small"), None)
    if screen is None:
        pytest.skip("needs the two-screen offscreen configuration of tests/desktop/conftest.py")
    return screen


@pytest.fixture
def window(qtbot: QtBot) -> Iterator[QWidget]:
    widget = QWidget()
    qtbot.addWidget(widget)
    yield widget


def test_a_first_start_on_a_small_screen_fits_it(small_screen: QScreen, window: QWidget) -> None:
    window.setScreen(small_screen)
    place_window(window, QSize(1360, 860))
    available = small_screen.availableGeometry()
    assert window.width() <= available.width() * 0.9 and window.height() <= available.height() * 0.9
    assert available.contains(window.frameGeometry())


def test_a_remembered_geometry_larger_than_its_screen_is_clamped(
    qtbot: QtBot, small_screen: QScreen, window: QWidget
) -> None:
    available = small_screen.availableGeometry()
    window.setScreen(small_screen)
    window.setGeometry(available.left() + 300, 200, 1400, 900)  # saved on a larger monitor, say
    saved = window.saveGeometry()

    restored = QWidget()
    qtbot.addWidget(restored)
    place_window(restored, QSize(1360, 860), saved)
    restored.show()
    qtbot.waitExposed(restored)
    assert available.contains(restored.frameGeometry())
    assert restored.screen() is small_screen


def test_the_main_and_management_windows_fit_the_screen_on_a_first_start(qtbot: QtBot) -> None:
    create_app()
    app = DesktopApp()
    try:
        window = app.window
        available = window.screen().availableGeometry()
        assert window.width() <= max(1360, available.width() * 0.9)
        assert available.contains(window.frameGeometry())
        app.window.show()
        app.window.open_manager()
        manager = app.window._manage_window
        assert manager is not None
        assert available.contains(manager.frameGeometry())
        assert manager.width() <= available.width() * 0.9
    finally:
        app.close()


def test_the_main_window_reopens_where_it_was_but_inside_the_screen(
    qtbot: QtBot, small_screen: QScreen
) -> None:
    create_app()
    probe = QWidget()
    qtbot.addWidget(probe)
    probe.setScreen(small_screen)
    probe.setGeometry(small_screen.availableGeometry().left() + 200, 100, 1500, 950)
    settings = app_settings()
    settings.setValue("window/geometry", probe.saveGeometry())
    settings.sync()

    app = DesktopApp()
    try:
        app.window.show()
        qtbot.waitExposed(app.window)
        assert small_screen.availableGeometry().contains(app.window.frameGeometry())
    finally:
        app.close()


def test_a_long_item_in_the_preview_scrolls_instead_of_making_the_manager_taller_than_the_screen(
    qtbot: QtBot, desktop: DesktopApp, small_screen: QScreen
) -> None:
    desktop.window.open_manager("rules")
    manager = desktop.window._manage_window
    assert manager is not None
    editor = manager.rules.editor
    manager.rules.open_item("clear-answers")
    editor.body.setPlainText("A line of the rule.\n" * 400)
    editor.tabs.setCurrentIndex(1)  # the preview
    qtbot.waitUntil(lambda: editor.preview.height() > 2000, timeout=5000)
    assert manager.minimumSizeHint().height() < small_screen.availableGeometry().height() * 0.9
