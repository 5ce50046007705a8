"""The desktop issue's acceptance, as a new user would go: the shipped default agent, the bundled
offline model and the real MiniLM indexer, no scripted provider anywhere.

Chat offline, add a rule to the chat, see an agent-selected reference and its score in View
Context, approve a tool call, restart and find the chat with its contexts intact.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from agent_core.agent.scaffold import create_agent
from desktop.app import DesktopApp
from desktop.views.approval_widget import ApprovalWidget
from desktop.views.message_widgets import MessageWidget
from desktop.views.tool_call_widget import ToolCallWidget
from tests.support.desktop_driver import column_rows, names, open_context, screenshot, send
from tests.support.models import runnable_offline_model

pytestmark = [pytest.mark.slow, pytest.mark.gui]

REPLY_WAIT_MS = 120_000  # a real model on two cores, loading included


@pytest.fixture
def default_agent_dir(tmp_path: Path) -> Path:
    runnable_offline_model()
    documents = tmp_path / "Documents"
    documents.mkdir()
    (documents / "notes.md").write_text("# Notes\nThe launch is on Friday.\n", encoding="utf-8")
    (documents / "budget-2026.txt").write_text("Rent 1200\nFood 400\n", encoding="utf-8")
    root = tmp_path / "agent"
    create_agent(root)
    config = root / "agent.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("~/Documents", str(documents)), encoding="utf-8"
    )
    return root


def replies(app: DesktopApp) -> list[MessageWidget]:
    view = app.window.current_view()
    assert view is not None
    return [
        w
        for w in view.conversation.widgets()
        if isinstance(w, MessageWidget) and w.entry is not None and w.entry.kind == "assistant"
    ]


def finished(app: DesktopApp, count: int) -> bool:
    controller = app.window.current_controller()
    done = controller is not None and not controller.busy
    return done and len(replies(app)) >= count and replies(app)[-1].entry.status == "complete"  # type: ignore[union-attr]


def test_a_new_user_chats_offline_adds_a_rule_sees_the_context_approves_a_tool_and_restarts(
    qtbot: QtBot, default_agent_dir: Path
) -> None:
    app = DesktopApp()
    app.start(default_agent_dir)
    try:
        qtbot.waitUntil(lambda: app.window.current_controller() is not None, timeout=REPLY_WAIT_MS)
        panel = app.window.context_panel
        assert names(app, "rule") == ["clear-answers"]

        # Add a rule to the chat from the Rules section's menu.
        actions = panel.sections["rule"].fill_add_menu().actions()
        next(a for a in actions if "writing-style" in a.text()).trigger()
        qtbot.waitUntil(lambda: "writing-style" in names(app, "rule"), timeout=REPLY_WAIT_MS)

        send(qtbot, app, "How do I make a table in Markdown?")
        qtbot.waitUntil(lambda: finished(app, 1), timeout=REPLY_WAIT_MS)
        assert replies(app)[-1].entry.text.strip()  # type: ignore[union-attr]

        dialog = open_context(qtbot, app)
        rules = column_rows(dialog, "rule")
        assert ("100", "clear-answers", "Always", "") in rules
        assert ("200", "writing-style", "Manual", "") in rules
        references = column_rows(dialog, "reference")
        cheatsheet = next(r for r in references if r[1] == "markdown-cheatsheet")
        assert cheatsheet[2] == "Agent" and 0.3 < float(cheatsheet[3]) <= 1.5
        assert "smollm2-135m-instruct" in dialog.summary.text()
        screenshot(dialog, "acceptance_view_context")
        dialog.close()

        send(qtbot, app, "List the files in my documents folder")
        view = app.window.current_view()
        assert view is not None
        qtbot.waitUntil(
            lambda: any(isinstance(w, ApprovalWidget) for w in view.conversation.widgets()),
            timeout=REPLY_WAIT_MS,
        )
        approval = next(w for w in view.conversation.widgets() if isinstance(w, ApprovalWidget))
        assert "workspace.list_files" in approval.question.text()
        # list_files needs no arguments; the card says which folder it lists instead.
        documents = default_agent_dir.parent / "Documents"
        assert f"workspace.list_files</b> in your workspace folder {documents}." in approval.question.text()
        assert approval.arguments.isHidden()
        screenshot(app.window, "acceptance_approval")
        qtbot.mouseClick(approval.allow_once, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: finished(app, 2), timeout=REPLY_WAIT_MS)
        tool = next(w for w in view.conversation.widgets() if isinstance(w, ToolCallWidget))
        assert tool.entry is not None and tool.entry.status == "done"
        assert "notes.md" in tool.result.toPlainText()
        assert "notes.md" in replies(app)[-1].entry.text  # type: ignore[union-attr]  # the result, shown
        screenshot(app.window, "acceptance_tool_call")

        dialog = open_context(qtbot, app)
        assert [t[:3] for t in column_rows(dialog, "tool")] == [("workspace.", "list_files", "Always")]
        assert "picked workspace.list_files" in dialog.columns["tool"].note.text()  # type: ignore[index]
        # list_files needs no arguments and the bundled model shows its result: no model ran at all.
        assert "no model call, so no tokens: the tool " in dialog.summary.text()
        assert "0 in, 0 out" not in dialog.summary.text()
        screenshot(dialog, "acceptance_view_context_routed")
        dialog.close()
        chat_id = app.window.current_controller().id  # type: ignore[union-attr]
    finally:
        app.close()

    again = DesktopApp()
    again.start(default_agent_dir)
    try:
        qtbot.waitUntil(lambda: again.window.current_controller() is not None, timeout=REPLY_WAIT_MS)
        controller = again.window.current_controller()
        assert controller is not None and controller.id == chat_id
        qtbot.waitUntil(lambda: len(replies(again)) >= 2, timeout=REPLY_WAIT_MS)
        assert "writing-style" in names(again, "rule")

        first_reply = replies(again)[0]
        qtbot.mouseClick(first_reply.context_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: again.window.dialogs.last_context_dialog is not None, timeout=REPLY_WAIT_MS)
        dialog = again.window.dialogs.last_context_dialog
        references = column_rows(dialog, "reference")  # type: ignore[arg-type]
        assert any(r[1] == "markdown-cheatsheet" and r[2] == "Agent" and r[3] for r in references)
        assert ("200", "writing-style", "Manual", "") in column_rows(dialog, "rule")  # type: ignore[arg-type]
        proxy = dialog.columns["tool"].items_view.proxy  # type: ignore[union-attr]
        assert proxy.rowCount() == 0  # the question about Markdown called no tool
        screenshot(dialog, "acceptance_view_context_after_restart")  # type: ignore[arg-type]
        dialog.close()  # type: ignore[union-attr]
    finally:
        again.close()
