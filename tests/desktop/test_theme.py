"""The dark theme: the palette, the colours widgets build with, and screenshots to look at."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QStyle, QStyleOptionButton, QWidget
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from desktop.theme import DARK, LIGHT, THEME_VARIABLE, apply_theme, badge_colors, colors, is_dark
from desktop.views.message_widgets import MessageWidget
from tests.support.desktop_driver import (
    WAIT_MS,
    ask_with_selection,
    idle,
    open_context,
    screenshot,
    scripted,
    send,
    start,
)


@pytest.fixture
def dark(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """CONTEXTDESK_THEME=dark, as a user would set it; the app applies it when it starts."""
    monkeypatch.setenv(THEME_VARIABLE, "dark")
    yield
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app, Qt.ColorScheme.Light)


def test_the_dark_theme_darkens_the_palette_bubbles_and_badges(
    dark: None, qtbot: QtBot, desktop: DesktopApp
) -> None:
    assert is_dark() and colors() is DARK
    assert QApplication.palette().color(QPalette.ColorRole.Base).lightness() < 64
    assert badge_colors("agent").background.lightness() < 128  # light text on a dark badge

    scripted(desktop).enqueue_reply("Use a **list**:\n\n```python\nnames = ['a', 'b']\n```\n")
    send(qtbot, desktop, "How do I make a list in Python?")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    view = desktop.window.current_view()
    assert view is not None
    reply = [w for w in view.conversation.widgets() if isinstance(w, MessageWidget)][-1]
    assert DARK.assistant_bubble in reply.styleSheet() and LIGHT.assistant_bubble not in reply.styleSheet()
    screenshot(desktop.window, "main_window_dark")

    ask_with_selection(qtbot, desktop)
    dialog = open_context(qtbot, desktop)
    screenshot(dialog, "view_context_dark")
    dialog.close()


def edge_contrast(widget: QWidget) -> int:
    """How far the widget's left edge (its frame) is in lightness from the window around it."""
    image = widget.grab().toImage()
    edge = image.pixelColor(0, image.height() // 2)
    return abs(edge.lightness() - QApplication.palette().color(QPalette.ColorRole.Window).lightness())


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_the_message_box_and_the_model_box_have_a_border_that_shows(
    qtbot: QtBot, agent_dir: Path, monkeypatch: pytest.MonkeyPatch, theme: str
) -> None:
    monkeypatch.setenv(THEME_VARIABLE, theme)
    app = start(qtbot, agent_dir)
    try:
        view = app.window.current_view()
        assert view is not None
        app.window.resize(1024, 700)
        view.composer.clearFocus()  # the border without focus (with focus it takes the link colour)
        screenshot(app.window, f"message_and_model_box_{theme}")
        assert edge_contrast(view.composer) >= 40
        assert edge_contrast(view.model_picker) >= 40
    finally:
        app.close()
        qt_app = QApplication.instance()
        assert isinstance(qt_app, QApplication)
        apply_theme(qt_app, Qt.ColorScheme.Light)


def test_the_light_theme_is_back_after_switching(qtbot: QtBot, desktop: DesktopApp) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app, Qt.ColorScheme.Dark)
    apply_theme(app, Qt.ColorScheme.Light)
    assert not is_dark() and colors() is LIGHT


def test_the_app_has_its_icon_and_desktop_file_name(desktop: DesktopApp) -> None:
    assert not QApplication.windowIcon().isNull()
    assert QApplication.windowIcon().pixmap(32, 32).width() == 32
    assert QApplication.desktopFileName() == "contextdesk"


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_every_field_and_check_box_has_a_border_that_shows(qtbot: QtBot, theme: str) -> None:
    from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QPlainTextEdit, QSpinBox, QVBoxLayout

    from desktop.app import create_app

    qt_app = create_app()
    apply_theme(qt_app, Qt.ColorScheme.Dark if theme == "dark" else Qt.ColorScheme.Light)
    try:
        form = QWidget()
        layout = QVBoxLayout(form)
        fields = [QLineEdit(), QComboBox(), QSpinBox(), QPlainTextEdit()]
        for field in fields:
            layout.addWidget(field)
        check = QCheckBox("Agree")
        layout.addWidget(check)
        qtbot.addWidget(form)
        form.resize(300, 260)
        form.show()
        qtbot.waitExposed(form)
        screenshot(form, f"fields_{theme}")
        for field in fields:
            assert edge_contrast(field) >= 40, type(field).__name__
        option = QStyleOptionButton()
        check.initStyleOption(option)
        box = check.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, check)
        image = check.grab().toImage()
        edge = image.pixelColor(box.left(), box.center().y())
        window = QApplication.palette().color(QPalette.ColorRole.Window)
        assert abs(edge.lightness() - window.lightness()) >= 40
    finally:
        apply_theme(qt_app, Qt.ColorScheme.Light)
