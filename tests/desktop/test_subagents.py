"""Sub-agents in the window: a running child shows its live use with Stop, its chat opens
read-only, and View Context lists what it was asked and what it cost beside the reply's own."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from desktop.views.subagent_call import SubagentCallWidget
from tests.support.agent_files import RESEARCHER
from tests.support.desktop_driver import WAIT_MS, idle, open_context, screenshot, scripted, send


@pytest.fixture
def agent_dir(agent_dir: Path) -> Path:
    (agent_dir / "subagents").mkdir()
    (agent_dir / "subagents" / "researcher.md").write_text(RESEARCHER, encoding="utf-8")
    return agent_dir


def _calls(desktop: DesktopApp) -> list[SubagentCallWidget]:
    view = desktop.window.current_view()
    assert view is not None
    return [w for w in view.conversation.widgets() if isinstance(w, SubagentCallWidget)]


class Gate:
    """Held until the test opens it (set from the GUI thread through the bridge)."""

    def __init__(self) -> None:
        self.reached = False
        self.event: asyncio.Event | None = None

    async def wait(self) -> None:
        self.event = asyncio.Event()
        self.reached = True
        await self.event.wait()


def test_a_running_sub_agent_shows_its_use_and_its_chat_and_view_context_lists_it(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    provider = scripted(desktop)
    gate = Gate()
    provider.enqueue_tool_call(
        "subagents__researcher", {"task": "Which file holds the launch date?"}, "call-1"
    )
    provider.enqueue_reply(chunks=["notes.md says ", gate, "Friday."])  # type: ignore[list-item]
    provider.enqueue_reply("The launch is on Friday.")
    send(qtbot, desktop, "when is the launch? ask the researcher")
    qtbot.waitUntil(lambda: gate.reached and bool(_calls(desktop)), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: _calls(desktop)[0].entry.subagent is not None, timeout=WAIT_MS)  # type: ignore[union-attr]
    [call] = _calls(desktop)
    assert not call.cancel_button.isHidden() and "running" in call.state.text()
    assert call.task.text() == "Task: Which file holds the launch date?"
    screenshot(desktop.window, "subagent_running")

    desktop.bridge.call_soon(lambda: gate.event.set())  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: _calls(desktop)[0].entry.subagent.status == "finished", timeout=WAIT_MS)  # type: ignore[union-attr]
    [call] = _calls(desktop)
    assert call.cancel_button.isHidden() and "1 turn" in call.state.text()
    # It read nothing and called no tool: the card says so, not only its child's View Context.
    assert not call.produced.isHidden()
    assert call.produced.text().endswith("answered without using any tool")
    screenshot(call, "subagent_finished")

    qtbot.mouseClick(call.transcript_button, Qt.MouseButton.LeftButton)
    dialog = desktop.window.dialogs.last_transcript_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 2, timeout=WAIT_MS)
    assert [e.text for e in dialog.model.entries()] == [
        "Which file holds the launch date?",
        "notes.md says Friday.",
    ]
    screenshot(dialog, "subagent_transcript")
    dialog.close()

    context_dialog = open_context(qtbot, desktop)
    section = context_dialog.subagents
    assert not section.isHidden() and section.model.rowCount() == 1
    [run] = section.model.runs()
    assert run.task == "Which file holds the launch date?" and run.context_mode == "isolated"
    assert "its sub-agents" in section.usage.text() and "together" in section.usage.text()
    screenshot(context_dialog, "view_context_subagent")
    section.table.selectRow(0)
    qtbot.mouseClick(section.open_button, Qt.MouseButton.LeftButton)
    assert desktop.window.dialogs.last_transcript_dialog is not dialog
    context_dialog.close()


def test_stop_on_a_running_sub_agent_stops_it_and_the_reply_goes_on(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    provider = scripted(desktop)
    gate = Gate()
    provider.enqueue_tool_call("subagents__researcher", {"task": "look"}, "call-2")
    provider.enqueue_reply(chunks=["half ", gate])  # type: ignore[list-item]
    provider.enqueue_reply("It was stopped.")
    send(qtbot, desktop, "ask the researcher")
    qtbot.waitUntil(lambda: gate.reached and bool(_calls(desktop)), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not _calls(desktop)[0].cancel_button.isHidden(), timeout=WAIT_MS)
    qtbot.mouseClick(_calls(desktop)[0].cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: _calls(desktop)[0].entry.subagent.status == "cancelled", timeout=WAIT_MS)  # type: ignore[union-attr]
    controller = desktop.window.current_controller()
    assert controller is not None
    last = controller.last_reply_entry()
    assert last is not None and last.text == "It was stopped."


def test_the_sub_agents_tab_makes_checks_saves_test_runs_and_deletes_one(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path
) -> None:
    from tests.support.desktop_driver import open_manager

    window = open_manager(qtbot, desktop, "Sub-agents")
    panel = window.subagents
    qtbot.waitUntil(lambda: panel.model.rowCount() == 1, timeout=WAIT_MS)
    panel.new_name.setText("summariser")
    qtbot.mouseClick(panel.new_button, Qt.MouseButton.LeftButton)
    assert panel.editor.toPlainText().startswith("---\nname: summariser\n")
    assert panel.problems.text() == "No problems." and panel.save_button.isEnabled()
    panel.editor.setPlainText(panel.editor.toPlainText().replace("context: isolated", "context: sideways"))
    assert "error (line 5)" in panel.problems.text() and not panel.save_button.isEnabled()
    panel.editor.setPlainText(panel.editor.toPlainText().replace("context: sideways", "context: fork"))
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.model.rowCount() == 2, timeout=WAIT_MS)  # saved, the agent reloaded
    assert (agent_dir / "subagents" / "summariser.md").is_file()
    screenshot(window, "subagents_tab")

    scripted(desktop).enqueue_reply("A three-line summary.")
    panel.task.setText("summarise the notes")
    qtbot.waitUntil(panel.run_button.isEnabled, timeout=WAIT_MS)
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.result.toPlainText() == "A three-line summary.", timeout=WAIT_MS)
    assert "summariser finished" in panel.run_status.text()
    # It read nothing and called no tool, and the status says so beside "finished".
    assert "answered without using any tool" in panel.run_status.text()
    qtbot.mouseClick(panel.open_chat_button, Qt.MouseButton.LeftButton)
    assert desktop.window.dialogs.last_transcript_dialog is not None

    qtbot.mouseClick(panel.delete_button, Qt.MouseButton.LeftButton)
    assert panel.delete_button.text() == "Click again to delete summariser.md"
    qtbot.mouseClick(panel.delete_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.model.rowCount() == 1, timeout=WAIT_MS)
    assert not (agent_dir / "subagents" / "summariser.md").exists()
