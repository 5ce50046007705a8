"""The dark theme switches completely live: after switching, no widget already built (chat
bubbles, cards, code blocks, View Context, a dialog left open) keeps a light background."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from desktop.theme import DARK, apply_theme
from desktop.views.memory_chip import MemoryChip
from desktop.views.message_widgets import MessageWidget
from tests.support.desktop_driver import (
    WAIT_MS,
    ask_with_selection,
    idle,
    open_context,
    scripted,
    send,
    settle,
)

LIGHT_BACKGROUND = 180  # lightness (0-255) over which a background is light: the dark theme's are under 80
DARK_BACKGROUND = 100  # and under which one is dark: the light theme's are over 200


@pytest.fixture
def light_then_back(qtbot: QtBot) -> Iterator[QApplication]:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app, Qt.ColorScheme.Light)
    yield app
    apply_theme(app, Qt.ColorScheme.Light)


def light_widgets(top: QWidget, *, dark: bool = False) -> list[str]:
    """The shown widgets over 30 × 20 pixels whose background, as the window shows it, is light
    (``dark``: is dark): the colour most of each one's area shows in a grab of the whole window."""
    window = top.grab().toImage()
    ratio = window.width() / max(1, top.width())
    found = []
    for widget in [top, *top.findChildren(QWidget)]:
        if not widget.isVisible() or widget.width() < 30 or widget.height() < 20:
            continue
        corner = widget.mapTo(top, QPoint(0, 0))
        area = QRect(corner * ratio, widget.size() * ratio).intersected(window.rect())
        if area.isEmpty():
            continue
        part = window.copy(area).scaled(24, 24)
        counts = Counter(part.pixel(x, y) for x in range(part.width()) for y in range(part.height()))
        pixel, _ = counts.most_common(1)[0]
        lightness = QColor(pixel).lightness()
        if (lightness < DARK_BACKGROUND) if dark else (lightness > LIGHT_BACKGROUND):
            found.append(f"{type(widget).__name__}#{widget.objectName()}")
    return found


def test_switching_to_dark_darkens_every_widget_already_built(
    light_then_back: QApplication, qtbot: QtBot, desktop: DesktopApp
) -> None:
    scripted(desktop).enqueue_reply("Use a **list**:\n\n```python\nnames = ['a', 'b']\n```\n")
    send(qtbot, desktop, "How do I make a list in Python?")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    scripted(desktop).enqueue_reply("Noted.")
    send(qtbot, desktop, "remember that we deploy on Fridays")  # a memory card under the message
    qtbot.waitUntil(
        lambda: idle(desktop) and any(isinstance(w, MemoryChip) for w in widgets(desktop)), timeout=WAIT_MS
    )
    ask_with_selection(qtbot, desktop)
    dialog = open_context(qtbot, desktop)  # left open across the switch
    settle()
    assert light_widgets(desktop.window)  # built light: the check sees light backgrounds

    apply_theme(light_then_back, Qt.ColorScheme.Dark)
    settle()
    assert light_widgets(desktop.window) == []
    assert light_widgets(dialog) == []
    reply = next(w for w in widgets(desktop) if isinstance(w, MessageWidget) and w.body.code_blocks())
    assert DARK.code_background in reply.body.toHtml()  # the code block is rendered again

    # And back: nothing stays dark either.
    apply_theme(light_then_back, Qt.ColorScheme.Light)
    settle()
    assert light_widgets(desktop.window, dark=True) == []
    assert light_widgets(dialog, dark=True) == []


def widgets(app: DesktopApp) -> list[QWidget]:
    view = app.window.current_view()
    assert view is not None
    return view.conversation.widgets()


def test_a_link_built_in_the_light_theme_takes_the_dark_themes_link_colour(
    qtbot: QtBot, light_then_back: QApplication
) -> None:
    label = QLabel("No skills yet — <a href='import'>Import skills…</a>")
    label.setStyleSheet("font-size: 20px")
    qtbot.addWidget(label)
    label.show()
    apply_theme(light_then_back, Qt.ColorScheme.Dark)
    link = QColor(light_then_back.palette().color(light_then_back.palette().ColorRole.Link))
    image = label.grab().toImage()
    colours = {QColor(image.pixel(x, y)).name() for x in range(image.width()) for y in range(image.height())}
    assert link.name() in colours
