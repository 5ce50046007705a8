"""MCP resources and prompts in the GUI, with the real demo server: attach a resource to the chat as
a reference, and insert a prompt (its arguments asked in a form) into the message box."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from agent_core.mcp.types import ServerState
from desktop.app import DesktopApp, create_app
from desktop.dialogs.attach_resource import AttachResourceDialog
from desktop.dialogs.insert_prompt import InsertPromptDialog
from desktop.models.context_items import Column
from desktop.models.mcp_catalog import CatalogRole
from tests.support.desktop_driver import WAIT_MS, idle, screenshot, scripted, send
from tests.support.paths import FIXTURES
from tests.support.server_trust import trust_servers

DEMO_SERVER = FIXTURES / "mcp" / "demo_server.py"


@pytest.fixture
def with_demo(qtbot: QtBot, agent_dir: Path) -> Iterator[DesktopApp]:
    """The test agent with the demo server added (mcpServers is the last block of its agent.yaml)."""
    config = agent_dir / "agent.yaml"
    demo = f"  demo:\n    command: {json.dumps(sys.executable)}\n    args: [{json.dumps(str(DEMO_SERVER))}]\n"
    config.write_text(config.read_text() + demo)
    trust_servers(agent_dir)
    create_app()
    app = DesktopApp()
    app.start(agent_dir)

    def servers_ready() -> bool:
        manager = app.host.mcp
        return manager is not None and [s.state for s in manager.statuses()] == [ServerState.READY] * 2

    try:
        qtbot.waitUntil(
            lambda: app.window.current_controller() is not None and servers_ready(), timeout=WAIT_MS
        )
        yield app
    finally:
        app.close()


def test_a_servers_resource_is_attached_to_the_chat_as_a_reference_and_sent(
    qtbot: QtBot, with_demo: DesktopApp
) -> None:
    window = with_demo.window
    references = window.context_panel.sections["reference"]
    action = next(a for a in references.fill_add_menu().actions() if a.text() == "Attach from a tool server…")
    action.trigger()
    dialog = window.dialogs.last_resource_dialog
    assert isinstance(dialog, AttachResourceDialog)
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 1, timeout=WAIT_MS)
    index = dialog.model.index(0)
    assert (index.data(CatalogRole.SERVER), index.data(CatalogRole.NAME)) == ("demo", "demo://greeting")
    assert dialog.attach_button.isEnabled()
    screenshot(dialog, "attach_resource")

    with qtbot.waitSignal(dialog.accepted, timeout=WAIT_MS):
        qtbot.mouseClick(dialog.attach_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: references.model.rowCount() == 1, timeout=WAIT_MS)
    row = references.model.row_at(0)
    assert (row.ref.server, row.ref.name, row.removed) == ("demo", "demo://greeting", False)
    assert references.model.index(0, Column.NAME).data() == "demo://greeting"
    assert row.description == "greeting — resource of demo"
    screenshot(window, "attached_resource")

    scripted(with_demo).enqueue_reply("It says hello.")
    send(qtbot, with_demo, "What does the greeting say?")
    qtbot.waitUntil(lambda: idle(with_demo), timeout=WAIT_MS)
    request = scripted(with_demo).requests[-1]
    assert any("Hello from the demo server" in m.content for m in request.messages)


def test_a_servers_prompt_is_filled_in_and_put_in_the_message_box_not_sent(
    qtbot: QtBot, with_demo: DesktopApp
) -> None:
    view = with_demo.window.current_view()
    assert view is not None
    view.composer.setPlainText("/prompt review")
    qtbot.keyClick(view.composer, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: with_demo.window.dialogs.last_prompt_dialog is not None, timeout=WAIT_MS)
    dialog = with_demo.window.dialogs.last_prompt_dialog
    assert isinstance(dialog, InsertPromptDialog)
    qtbot.waitUntil(lambda: set(dialog.fields) == {"code", "language"}, timeout=WAIT_MS)
    prompt = dialog.selected()
    assert prompt is not None and (prompt.server, prompt.name) == ("demo", "review")
    assert view.composer.toPlainText() == ""  # the command itself is not left in the box

    dialog.insert()  # "code" is required
    assert "Fill in code" in dialog.status.text()
    qtbot.keyClicks(dialog.fields["code"], "print(1)")
    assert dialog.status.isHidden()  # the complaint goes once the field is filled in
    screenshot(dialog, "insert_prompt")
    with qtbot.waitSignal(dialog.text_ready, timeout=WAIT_MS):
        qtbot.mouseClick(dialog.insert_button, Qt.MouseButton.LeftButton)

    assert view.composer.toPlainText() == "Please review this python code:\nprint(1)"
    assert view.controller.conversation.rowCount() == 0 and not view.controller.busy
    screenshot(with_demo.window, "prompt_inserted")
