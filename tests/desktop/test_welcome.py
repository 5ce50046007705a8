"""The first run's welcome: what rules, references and tools are, one example message for each
(put in the box with a click), and the workspace folder; later chats show one line."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from desktop.views.welcome import EXAMPLES, EmptyChat, welcomed
from tests.support.desktop_driver import WAIT_MS, screenshot, start


def empty_of(desktop: DesktopApp) -> EmptyChat:
    view = desktop.window.current_view()
    assert view is not None
    empty = view.conversation._empty
    assert isinstance(empty, EmptyChat)
    return empty


def test_the_first_chat_welcomes_with_examples_and_later_chats_show_one_line(
    qtbot: QtBot, theme: str, desktop: DesktopApp, tmp_path: Path, agent_dir: Path
) -> None:
    empty = empty_of(desktop)
    assert empty.first_run and not empty.isHidden()
    assert "<b>rules</b>" in empty.label.text() and len(empty.example_buttons) == len(EXAMPLES)
    screenshot(desktop.window, f"welcome_{theme}")
    desktop.window.resize(1024, 700)  # the smallest window the app is made for: nothing is cut off
    view = desktop.window.current_view()
    assert view is not None
    qtbot.waitUntil(lambda: empty.width() <= view.conversation.viewport().width(), timeout=WAIT_MS)
    screenshot(desktop.window, "welcome_narrow")
    qtbot.mouseClick(empty.example_buttons[0], Qt.MouseButton.LeftButton)
    view = desktop.window.current_view()
    assert view is not None and view.composer.toPlainText() == EXAMPLES[0][1]
    assert welcomed()

    later = EmptyChat()  # what every new chat shows from now on
    qtbot.addWidget(later)
    assert not later.first_run and later.label.text().startswith("Ask anything") and not later.example_buttons

    folder = tmp_path / "my-files"
    folder.mkdir()
    desktop.window.set_workspace_folder(folder)
    qtbot.waitUntil(lambda: f"root: {folder}" in (agent_dir / "agent.yaml").read_text(), timeout=WAIT_MS)


def test_the_welcome_warns_when_the_workspace_folder_is_missing_until_one_is_chosen(
    qtbot: QtBot, agent_dir: Path, tmp_path: Path
) -> None:
    (tmp_path / "files" / "notes.md").unlink()
    (tmp_path / "files").rmdir()  # a fresh machine without ~/Documents, say
    app = start(qtbot, agent_dir)
    try:
        empty = empty_of(app)
        qtbot.waitUntil(lambda: not empty.missing_folder.isHidden(), timeout=WAIT_MS)
        assert str(tmp_path / "files") in empty.missing_folder.text()
        assert "before trying the tool example" in empty.missing_folder.text()
        screenshot(app.window, "welcome_missing_workspace_folder")
        chosen = tmp_path / "chosen"
        chosen.mkdir()
        app.window.set_workspace_folder(chosen)
        qtbot.waitUntil(lambda: empty.missing_folder.isHidden(), timeout=WAIT_MS)
    finally:
        app.close()
