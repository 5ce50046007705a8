"""A tool server asks the user for input (MCP elicitation) while a chat's tool call waits: the
form is built from the server's schema, checked before Accept, and the answer reaches the server;
Decline and Cancel say so; a link is shown and opened only by choice. The agent's workspace folder
is the servers' root, and changing it in the app tells a running server (roots/list_changed)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit
from pytestqt.qtbot import QtBot

from agent_core.mcp import ServerState
from desktop.app import DesktopApp
from desktop.dialogs.elicitation import ChoiceChecks, ElicitationDialog, UrlElicitationDialog
from desktop.views.tool_call_widget import ToolCallWidget
from tests.support.desktop_driver import WAIT_MS, idle, screenshot, scripted, send, start
from tests.support.mcp_servers import DEMO_SERVER, NODE_MODULES, npm_server
from tests.support.server_trust import trust_servers

EVERYTHING = NODE_MODULES / "@modelcontextprotocol" / "server-everything"


@pytest.fixture
def everything_app(qtbot: QtBot, agent_dir: Path) -> Iterator[DesktopApp]:
    """The test agent with server-everything beside its workspace server, its tools allowed."""
    if not EVERYTHING.is_dir():
        pytest.skip("server-everything is not installed (npm ci in tests/)")
    server = npm_server(NODE_MODULES, "server-everything", "stdio")
    with (agent_dir / "agent.yaml").open("a", encoding="utf-8") as config:
        config.write(
            f"  everything:\n    command: {json.dumps(server.command)}\n    args: {json.dumps(server.args)}\n"
            "    toolDefaults: {include: always, permissionRequired: false}\n"
        )
    trust_servers(agent_dir)
    app = start(qtbot, agent_dir)
    qtbot.waitUntil(lambda: ready(app, "everything"), timeout=WAIT_MS)
    yield app
    app.close()


def ready(app: DesktopApp, server: str) -> bool:
    manager = app.host.mcp
    return manager is not None and manager.status(server).state is ServerState.READY


def call_tool_in_chat(
    qtbot: QtBot, app: DesktopApp, tool: str, arguments: dict[str, str] | None = None
) -> object:
    """Send a message whose scripted reply calls ``tool``; returns the dialog the server's request opens."""
    provider = scripted(app)
    provider.enqueue_tool_call(f"everything__{tool}", arguments or {})
    provider.enqueue_reply("Done.")
    with qtbot.waitSignal(app.host.elicitation_asker.asked, timeout=WAIT_MS) as shown:
        send(qtbot, app, "Ask me")
    return shown.args[0]


def tool_result(qtbot: QtBot, app: DesktopApp) -> str:
    qtbot.waitUntil(lambda: idle(app), timeout=WAIT_MS)
    view = app.window.current_view()
    assert view is not None
    tool = next(w for w in view.conversation.widgets() if isinstance(w, ToolCallWidget))
    return tool.result.toPlainText()


def test_the_form_is_built_from_the_schema_checked_and_accepted_values_reach_the_server(
    qtbot: QtBot, theme: str, everything_app: DesktopApp
) -> None:
    dialog = call_tool_in_chat(qtbot, everything_app, "trigger-elicitation-request")
    assert isinstance(dialog, ElicitationDialog)
    assert dialog.isVisible() and "everything" in dialog.windowTitle()
    name = dialog.editor("name")
    assert isinstance(name.editor, QLineEdit) and name.title.text() == "String *"
    assert isinstance(dialog.editor("check").editor, QCheckBox)
    hero = dialog.editor("titledSingleSelectEnum").editor
    assert isinstance(hero, QComboBox) and hero.currentText() == "Superman"
    assert [hero.itemText(i) for i in range(hero.count())] == [
        "(none)",
        "Superman",
        "Green Lantern",
        "Wonder Woman",
    ]  # optional: may be left unset
    instruments = dialog.editor("untitledMultipleSelectEnum").editor
    assert isinstance(instruments, ChoiceChecks) and len(instruments.boxes) == 5
    assert dialog.editor("integer").editor.text() == "42"  # type: ignore[attr-defined]
    screenshot(dialog, f"elicitation_form_{theme}")
    dialog.fields_area.verticalScrollBar().setValue(dialog.fields_area.verticalScrollBar().maximum())
    screenshot(dialog, f"elicitation_form_choices_{theme}")

    # Accept with the required name empty and a bad email: the form stays, saying what to fix.
    dialog.editor("email").editor.setText("not-an-email")  # type: ignore[attr-defined]
    qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
    assert dialog.isVisible()
    assert dialog.editor("name").error.text() == "required"
    assert "email address" in dialog.editor("email").error.text()
    screenshot(dialog, f"elicitation_form_problems_{theme}")

    qtbot.keyClicks(name.editor, "Ada Lovelace")
    dialog.editor("email").editor.setText("ada@example.com")  # type: ignore[attr-defined]
    dialog.editor("check").editor.setChecked(True)  # type: ignore[attr-defined]
    hero.setCurrentIndex(3)
    piano = instruments.boxes[1][1]
    dialog.fields_area.ensureWidgetVisible(piano)
    qtbot.mouseClick(piano, Qt.MouseButton.LeftButton, pos=QPoint(8, piano.height() // 2))  # on its box
    assert piano.isChecked()
    qtbot.mouseClick(dialog.accept_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()

    text = tool_result(qtbot, everything_app)
    assert "- Name: Ada Lovelace" in text and "- Email: ada@example.com" in text
    assert "- Agreed to terms: true" in text and "- Favorite Integer: 42" in text
    assert '"titledSingleSelectEnum": "hero-3"' in text and '"Piano"' in text
    scripted(everything_app).assert_all_used()


@pytest.mark.parametrize(("button", "said"), [("decline_button", "declined"), ("cancel_button", "cancelled")])
def test_decline_and_cancel_tell_the_server(
    qtbot: QtBot, everything_app: DesktopApp, button: str, said: str
) -> None:
    dialog = call_tool_in_chat(qtbot, everything_app, "trigger-elicitation-request")
    qtbot.mouseClick(getattr(dialog, button), Qt.MouseButton.LeftButton)
    assert f"User {said}" in tool_result(qtbot, everything_app)


def test_a_link_is_shown_in_full_and_declining_opens_nothing(
    qtbot: QtBot, theme: str, everything_app: DesktopApp
) -> None:
    dialog = call_tool_in_chat(
        qtbot,
        everything_app,
        "trigger-url-elicitation",
        {"url": "https://example.com/authorize?client=contextdesk", "message": "Sign in to Example"},
    )
    assert isinstance(dialog, UrlElicitationDialog)
    assert dialog.url.toPlainText() == "https://example.com/authorize?client=contextdesk"
    assert dialog.cancel_button.isDefault() and not dialog.open_button.isDefault()
    screenshot(dialog, f"elicitation_url_{theme}")
    qtbot.mouseClick(dialog.decline_button, Qt.MouseButton.LeftButton)
    assert "declined to open the URL" in tool_result(qtbot, everything_app)


def test_changing_the_workspace_folder_tells_the_running_server_its_new_root(
    qtbot: QtBot, everything_app: DesktopApp, tmp_path: Path
) -> None:
    manager = everything_app.host.mcp
    files = (tmp_path / "files").resolve()
    first = everything_app.bridge.run_sync(manager.call_tool("everything", "get-roots-list", {}))
    assert files.as_uri() in first.text and "(1 total)" in first.text

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    everything_app.window.set_workspace_folder(elsewhere)
    qtbot.waitUntil(lambda: manager.roots_of("workspace") == (elsewhere,), timeout=WAIT_MS)
    assert everything_app.host.mcp is manager  # no restart: the server was told, not relaunched

    def shows_new_root() -> bool:
        result = everything_app.bridge.run_sync(manager.call_tool("everything", "get-roots-list", {}))
        return elsewhere.resolve().as_uri() in result.text and files.as_uri() not in result.text

    qtbot.waitUntil(shows_new_root, timeout=WAIT_MS)


def test_a_server_started_with_the_workspace_folder_in_its_settings_is_restarted_instead(
    qtbot: QtBot, agent_dir: Path, tmp_path: Path
) -> None:
    with (agent_dir / "agent.yaml").open("a", encoding="utf-8") as config:
        config.write(
            f"  demo:\n    command: {json.dumps(sys.executable)}\n    args: [{json.dumps(str(DEMO_SERVER))}]\n"
            "    env: {FOLDER: '${workspaceFolder}'}\n"
        )
    trust_servers(agent_dir)
    app = start(qtbot, agent_dir)
    try:
        qtbot.waitUntil(lambda: ready(app, "demo"), timeout=WAIT_MS)
        before = app.host.mcp
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        app.window.set_workspace_folder(elsewhere)
        qtbot.waitUntil(lambda: app.host.mcp is not before and ready(app, "demo"), timeout=WAIT_MS)
        assert app.host.mcp.roots_of("demo") == (elsewhere,)
    finally:
        app.close()


def test_long_words_from_a_server_do_not_widen_the_dialogs(qtbot: QtBot) -> None:
    from agent_core.mcp.elicitation import form_from_schema, url_elicitation

    word = "x" * 3000
    form = form_from_schema(
        "s",
        word,
        {"type": "object", "properties": {"a": {"type": "string", "title": word, "description": word}}},
    )
    url = url_elicitation("s", word, "https://example.com/" + word, None)
    for dialog in (ElicitationDialog(form), UrlElicitationDialog(url)):
        qtbot.addWidget(dialog)
        dialog.show()
        assert dialog.width() < 1000


def test_a_request_the_core_stops_waiting_for_closes_its_dialog(qtbot: QtBot) -> None:
    import asyncio

    from agent_core.mcp.elicitation import form_from_schema
    from desktop.bridge import CoreBridge
    from desktop.controllers.elicitation import ElicitationAsker

    bridge = CoreBridge()
    asker = ElicitationAsker(bridge)
    form = form_from_schema("slow", "Name?", {"type": "object", "properties": {"a": {"type": "string"}}})
    outcome: list[BaseException] = []
    try:
        with qtbot.waitSignal(asker.asked, timeout=WAIT_MS) as shown:
            bridge.submit(asyncio.wait_for(asker(form), 0.5), lambda _: None, outcome.append)
        dialog = shown.args[0]
        assert dialog.isVisible()
        qtbot.waitUntil(lambda: not dialog.isVisible() and bool(outcome), timeout=WAIT_MS)
        assert isinstance(outcome[0], TimeoutError)
    finally:
        bridge.shutdown()
