"""A tool that runs as a protocol task (server-everything's `simulate-research-query`) in the
chat: its row shows the task's status while it works, then the report; Stop ends the reply at once."""

from __future__ import annotations

import time

from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from tests.desktop.test_tool_progress import (  # the same agent with server-everything
    live,
    live_agent_dir,
    reported_progress,
    running_with_progress,
    tool_widget,
)
from tests.support.desktop_driver import WAIT_MS, idle, screenshot, scripted, send

__all__ = ["live", "live_agent_dir"]  # fixtures shared with test_tool_progress

RESEARCH = "everything__simulate-research-query"


def test_a_task_shows_its_status_on_the_tool_row_then_its_result(qtbot: QtBot, live: DesktopApp) -> None:
    provider = scripted(live)
    provider.enqueue_tool_call(RESEARCH, {"topic": "tide pools"})
    provider.enqueue_reply("Here is the report.")
    seen = reported_progress(live)
    send(qtbot, live, "Research tide pools.")
    qtbot.waitUntil(lambda: running_with_progress(live), timeout=WAIT_MS)
    widget = tool_widget(live)
    assert widget is not None
    qtbot.waitUntil(lambda: "Analyzing content" in widget.toggle.text(), timeout=WAIT_MS)
    assert "task working" in widget.toggle.text()
    assert widget.progress.maximum() == 0  # busy: a task says what it does, not how much is left
    screenshot(live.window, "tool_call_task_status")
    qtbot.waitUntil(lambda: idle(live), timeout=WAIT_MS)
    assert seen[0].task_status == "working" and seen[-1].task_status == "completed"
    assert widget.progress.isHidden()
    assert widget.entry is not None and widget.entry.status == "done"
    record = widget.entry.tool_call
    assert record is not None and "# Research Report: tide pools" in record.result
    provider.assert_all_used()


def test_stop_during_a_task_ends_the_reply_at_once(qtbot: QtBot, live: DesktopApp) -> None:
    scripted(live).enqueue_tool_call(RESEARCH, {"topic": "tide pools"})
    send(qtbot, live, "Research tide pools.")
    qtbot.waitUntil(lambda: running_with_progress(live), timeout=WAIT_MS)
    controller = live.window.current_controller()
    assert controller is not None
    stopped = time.monotonic()
    controller.stop()
    qtbot.waitUntil(lambda: not controller.busy, timeout=WAIT_MS)
    assert time.monotonic() - stopped < 1.0  # the task had seconds to go
    qtbot.waitUntil(
        lambda: any(
            "the server says cancelled" in line for line in live.host.mcp.status("everything").log_tail
        ),
        timeout=WAIT_MS,
    )
