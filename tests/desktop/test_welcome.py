"""The welcome: what rules, references and tools are, one example message for each (put in the
box with a click), and the workspace folder; new chats offer the examples not tried yet, and show
one line once all were tried or the user hid them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from desktop.app import DesktopApp
from desktop.views.welcome import EXAMPLES, EmptyChat, examples_served_by, welcomed
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
    assert not welcomed()

    # A new user tries one example, then opens a new chat: the other examples are still offered.
    later = EmptyChat()
    qtbot.addWidget(later)
    assert later.first_run and [b.text() for b in later.example_buttons] == [m for _, m in EXAMPLES[1:]]
    for button in list(later.example_buttons):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert welcomed()
    last = EmptyChat()  # every example tried: new chats show one line from now on
    qtbot.addWidget(last)
    assert not last.first_run and last.label.text().startswith("Ask anything") and not last.example_buttons

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


def test_hiding_the_examples_shows_one_line_now_and_in_new_chats(qtbot: QtBot, desktop: DesktopApp) -> None:
    empty = empty_of(desktop)
    assert empty.first_run and empty.examples_box.isVisible()
    qtbot.mouseClick(empty.hide_button, Qt.MouseButton.LeftButton)
    assert not empty.examples_box.isVisible() and empty.label.text().startswith("Ask anything")
    assert welcomed()
    later = EmptyChat()
    qtbot.addWidget(later)
    assert not later.first_run and not later.example_buttons


def test_the_examples_offered_are_those_the_open_agent_can_answer(qtbot: QtBot, tmp_path: Path) -> None:
    default = tmp_path / "default"
    create_agent(default)
    assert examples_served_by(load_agent(default)) == {message for _, message in EXAMPLES}

    # An agent imported from elsewhere: no rule about code, no guide to ContextDesk, no workspace
    # tools. The examples would be answered from nothing (a made-up file listing, say).
    imported = tmp_path / "imported"
    create_agent(imported)
    (imported / "rules" / "code-answers.md").unlink()
    (imported / "references" / "using-contextdesk.md").unlink()
    agent = load_agent(imported)
    assert examples_served_by(agent) == {EXAMPLES[2][1]}
    config = agent.config.model_copy(deep=True)
    config.mcp_servers["workspace"] = config.mcp_servers["workspace"].model_copy(update={"enabled": False})
    assert examples_served_by(replace(agent, config=config)) == frozenset()

    empty = EmptyChat()
    qtbot.addWidget(empty)
    empty.show()
    empty.offer_only(frozenset({EXAMPLES[2][1]}))
    shown = [b.text() for b in empty.example_buttons if b.isVisible()]
    assert shown == [EXAMPLES[2][1]] and not empty.no_examples.isVisible()
    empty.offer_only(frozenset())
    assert not any(b.isVisible() for b in empty.example_buttons)
    assert empty.no_examples.isVisible() and "View Context" in empty.no_examples.text()


def test_an_agent_without_an_example_item_opens_without_that_example(qtbot: QtBot, agent_dir: Path) -> None:
    app = start(qtbot, agent_dir)  # the test agent has the code rule and the workspace tools only
    try:
        empty = empty_of(app)
        qtbot.waitUntil(lambda: not empty.example_buttons[1].isVisibleTo(empty), timeout=WAIT_MS)
        shown = [b.text() for b in empty.example_buttons if b.isVisibleTo(empty)]
        assert shown == [EXAMPLES[0][1], EXAMPLES[2][1]]
    finally:
        app.close()
