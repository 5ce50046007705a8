"""A tool server's sampling request in the desktop chat: the approval card names the server and
shows its prompt, the keyboard answers it, and View Context of the turn shows the request."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from agent_core.chat.events import ApprovalDecision
from desktop.dialogs.view_context import ViewContextDialog
from desktop.views.approval_widget import ApprovalWidget
from desktop.views.message_widgets import MessageWidget
from desktop.views.tool_call_widget import ToolCallWidget
from tests.support.desktop_driver import WAIT_MS, idle, screenshot, scripted, send, start
from tests.support.mcp_servers import NODE_MODULES
from tests.support.server_trust import trust_servers

TOOL = "everything__trigger-sampling-request"


@pytest.fixture
def everything_agent(agent_dir: Path) -> Path:
    entry = NODE_MODULES / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    node = shutil.which("node")
    if node is None or not entry.is_file():
        pytest.skip("node and tests/node_modules (npm ci in tests/) are needed for server-everything")
    config = agent_dir / "agent.yaml"
    config.write_text(
        config.read_text()
        + f"  everything:\n    command: {node}\n    args: [{entry}, stdio]\n"
        + "    toolDefaults: {include: always, permissionRequired: false}\n"
    )
    return trust_servers(agent_dir)


def test_a_sampling_request_is_approved_from_the_chat_and_shown_in_view_context(
    qtbot: QtBot, everything_agent: Path
) -> None:
    app = start(qtbot, everything_agent)
    try:
        provider = scripted(app)
        provider.enqueue_tool_call(TOOL, {"prompt": "Summarise the launch notes", "maxTokens": 64}, "c1")
        provider.enqueue_reply("The launch is on Friday.")  # the server's sampling request
        provider.enqueue_reply("The server has its summary.")
        qtbot.waitUntil(
            lambda: any(t.server == "everything" for t in app.host.tools.tools()), timeout=WAIT_MS
        )
        send(qtbot, app, "Let the server ask the model")
        view = app.window.current_view()
        assert view is not None
        qtbot.waitUntil(
            lambda: any(isinstance(w, ApprovalWidget) for w in view.conversation.widgets()), timeout=WAIT_MS
        )
        card = next(w for w in view.conversation.widgets() if isinstance(w, ApprovalWidget))
        assert "Sampling request" in card.question.text() and "<b>everything</b>" in card.question.text()
        assert "up to 64 tokens" in card.question.text()
        assert (
            "Resource trigger-sampling-request context: Summarise the launch notes" in card.arguments.text()
        )
        assert "You are a helpful test server." in card.arguments.text()
        assert card.allow_chat.text() == "Always for this server"
        app.window.activateWindow()
        qtbot.waitUntil(card.hasFocus, timeout=WAIT_MS)  # the card has the keyboard, as for tools
        screenshot(app.window, "sampling_approval")
        qtbot.keyClick(card, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: idle(app), timeout=WAIT_MS)
        assert card.entry is not None and card.entry.decision is ApprovalDecision.ALLOW_FOR_CHAT
        assert card.outcome.text() == "Allowed for this server"
        tool = next(w for w in view.conversation.widgets() if isinstance(w, ToolCallWidget))
        assert tool.entry is not None and tool.entry.status == "done"
        assert "The launch is on Friday." in tool.result.toPlainText()  # what the server got back
        provider.assert_all_used()

        turn = next(
            w
            for w in view.conversation.widgets()
            if isinstance(w, MessageWidget)
            and w.entry is not None
            and w.entry.context is not None
            and w.entry.context.samplings
        )
        qtbot.mouseClick(turn.context_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: app.window.dialogs.last_context_dialog is not None, timeout=WAIT_MS)
        dialog = app.window.dialogs.last_context_dialog
        assert isinstance(dialog, ViewContextDialog)
        section = dialog.samplings
        assert not section.isHidden()
        model = section.model
        assert model.rowCount() == 1
        row = [model.index(0, column).data() for column in range(model.columnCount())]
        assert row[:4] == [
            "everything",
            "everything.trigger-sampling-request",
            "Answered (always for this server)",
            "scripted:x",
        ]
        details = section.details.toPlainText()
        assert "Summarise the launch notes" in details and "The launch is on Friday." in details
        screenshot(dialog, "sampling_view_context")
    finally:
        app.close()
