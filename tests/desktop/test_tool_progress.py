"""A tool call's progress bar in the chat, Stop during a long call, a tool added at runtime, and a
server flooding notifications while the GUI keeps ticking."""

from __future__ import annotations

import gc
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QElapsedTimer, QModelIndex, QTimer
from pytestqt.qtbot import QtBot

from agent_core.tools.progress import ToolProgress
from desktop.app import DesktopApp
from desktop.models.conversation_entries import Role
from desktop.views.tool_call_widget import ToolCallWidget
from tests.support.desktop_driver import WAIT_MS, idle, open_manager, screenshot, scripted, send, start
from tests.support.mcp_servers import NOTIFYING_SERVER, require_node_modules
from tests.support.server_trust import trust_servers

LONG_RUNNING = "everything__trigger-long-running-operation"


@pytest.fixture
def live_agent_dir(agent_dir: Path) -> Path:
    """The desktop test agent with server-everything and the notifying server, whose tools run
    without asking (the approval flow has its own tests)."""
    everything = require_node_modules() / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    open_tools = "    toolDefaults: {include: always, permissionRequired: false}\n"
    path = agent_dir / "agent.yaml"
    path.write_text(
        path.read_text(encoding="utf-8")
        + f"  everything:\n    command: node\n    args: [{json.dumps(str(everything))}, stdio]\n"
        + open_tools
        + f"  n:\n    command: {json.dumps(sys.executable)}\n    args: [{json.dumps(str(NOTIFYING_SERVER))}]\n"
        + open_tools,
        encoding="utf-8",
    )
    return trust_servers(agent_dir)


@pytest.fixture
def live(qtbot: QtBot, live_agent_dir: Path) -> Iterator[DesktopApp]:
    app = start(qtbot, live_agent_dir)
    names = {"everything", "n"}
    qtbot.waitUntil(lambda: names <= {t.server for t in app.host.tools.tools()}, timeout=WAIT_MS)
    yield app
    app.close()


def tool_widget(app: DesktopApp) -> ToolCallWidget | None:
    view = app.window.current_view()
    assert view is not None
    return next((w for w in view.conversation.widgets() if isinstance(w, ToolCallWidget)), None)


def running_with_progress(app: DesktopApp) -> bool:
    widget = tool_widget(app)
    return widget is not None and not widget.progress.isHidden()


def reported_progress(app: DesktopApp) -> list[ToolProgress]:
    """Every progress the conversation model showed on a tool row, in order."""
    controller = app.window.current_controller()
    assert controller is not None
    model = controller.conversation
    seen: list[ToolProgress] = []

    def changed(first: QModelIndex, last: QModelIndex) -> None:
        for row in range(first.row(), last.row() + 1):
            entry = model.index(row, 0).data(Role.ENTRY)
            if entry is not None and entry.progress is not None and entry.progress not in seen[-1:]:
                seen.append(entry.progress)

    model.dataChanged.connect(changed)
    return seen


def test_the_progress_bar_follows_every_step_and_goes_when_the_call_ends(
    qtbot: QtBot, live: DesktopApp
) -> None:
    provider = scripted(live)
    provider.enqueue_tool_call(LONG_RUNNING, {"duration": 2, "steps": 4})
    provider.enqueue_reply("Done.")
    seen = reported_progress(live)
    send(qtbot, live, "Run the long operation.")
    qtbot.waitUntil(lambda: running_with_progress(live), timeout=WAIT_MS)
    widget = tool_widget(live)
    assert widget is not None
    qtbot.waitUntil(lambda: widget.progress.value() >= 500, timeout=WAIT_MS)
    assert widget.progress.maximum() == 1000
    assert "2/4 · 50%" in widget.toggle.text() or "3/4 · 75%" in widget.toggle.text()
    screenshot(live.window, "tool_call_progress")
    qtbot.waitUntil(lambda: idle(live), timeout=WAIT_MS)
    assert [(p.progress, p.total) for p in seen] == [(step, 4) for step in range(1, 5)]
    assert widget.progress.isHidden()  # done: the bar goes, the elapsed time stays
    assert widget.entry is not None and widget.entry.status == "done"
    provider.assert_all_used()


def test_stop_during_a_long_call_ends_the_reply_at_once(qtbot: QtBot, live: DesktopApp) -> None:
    scripted(live).enqueue_tool_call(LONG_RUNNING, {"duration": 30, "steps": 30})
    send(qtbot, live, "Run the long operation.")
    qtbot.waitUntil(lambda: running_with_progress(live), timeout=WAIT_MS)
    controller = live.window.current_controller()
    assert controller is not None
    stopped = time.monotonic()
    controller.stop()
    qtbot.waitUntil(lambda: not controller.busy, timeout=WAIT_MS)
    assert time.monotonic() - stopped < 1.0  # the operation had about 29 s to go
    widget = tool_widget(live)
    assert widget is not None and widget.progress.isHidden()


def test_a_tool_the_server_adds_at_runtime_appears_in_the_tools_panel(qtbot: QtBot, live: DesktopApp) -> None:
    manager = open_manager(qtbot, live, "tools")
    tools = manager.tools.tools

    def listed() -> set[str]:
        return {tools.index(row, 0).data() for row in range(tools.rowCount())}

    qtbot.waitUntil(lambda: "n.add_tool" in listed(), timeout=WAIT_MS)
    assert "n.fresh" not in listed()
    provider = scripted(live)
    provider.enqueue_tool_call("n__add_tool", {"name": "fresh"})
    provider.enqueue_reply("Added.")
    send(qtbot, live, "Add a tool.")
    qtbot.waitUntil(lambda: "n.fresh" in listed(), timeout=WAIT_MS)
    assert any(t.name == "fresh" for t in live.host.tools.tools())  # what chats select from
    screenshot(manager, "tools_added_at_runtime")


def test_a_flood_of_progress_and_log_messages_never_stalls_the_gui(qtbot: QtBot, live: DesktopApp) -> None:
    provider = scripted(live)
    provider.enqueue_tool_calls(
        [("n__flood_progress", {"count": 10_000}, "p1"), ("n__flood_logs", {"count": 10_000}, "l1")]
    )
    provider.enqueue_reply("Flooded.")
    controller = live.window.current_controller()
    assert controller is not None
    model = controller.conversation
    # A timer on the GUI thread, ticking while the server floods (from the first call's row to the
    # second's result): the longest gap between its ticks is the longest stall. A gap counts only
    # as long as the GUI thread itself used the CPU in it: on a busy machine the operating system may
    # not run that thread for a while (the server's reader thread competes for two cores), which no
    # code of ours can cause or cure; the GUI thread's own CPU time is the work we put on it.
    clock = QElapsedTimer()
    ticks = QTimer()
    ticks.setInterval(5)
    longest = [0]
    worst = [(0, 0)]  # (wall ms, CPU ms) of the longest gap, for the message
    cpu_before = [time.thread_time()]

    def tick() -> None:
        wall = clock.restart()
        cpu_now = time.thread_time()
        cpu = round((cpu_now - cpu_before[0]) * 1000)
        cpu_before[0] = cpu_now
        if min(wall, cpu) > longest[0]:
            longest[0], worst[0] = min(wall, cpu), (wall, cpu)

    def watch(*_: object) -> None:
        entries = [model.index(row, 0).data(Role.ENTRY) for row in range(model.rowCount())]
        calls = {e.call_id: e.status for e in entries if e.kind == "tool_call"}
        if "p1" in calls and not ticks.isActive() and not clock.isValid():
            clock.start()
            cpu_before[0] = time.thread_time()
            ticks.start()
        if calls.get("l1") == "done":
            ticks.stop()

    ticks.timeout.connect(tick)
    model.rowsInserted.connect(watch)
    model.dataChanged.connect(watch)
    # Late in a whole test run the process holds every earlier test's objects, and a full garbage
    # collection over them runs on whichever thread allocates: here the GUI's. One stall of 192 ms
    # of the GUI thread's own CPU was seen in a whole run, never with this file alone; the app's
    # own heap is a small part of the suite's. Those objects are set aside for the measure; what
    # the flood itself allocates is still collected as usual.
    gc.collect()
    gc.freeze()
    try:
        send(qtbot, live, "Flood me.")
        qtbot.waitUntil(lambda: idle(live), timeout=60_000)
    finally:
        gc.unfreeze()
    provider.assert_all_used()
    assert clock.isValid() and not ticks.isActive()
    assert longest[0] < 100, f"the GUI thread stalled for {worst[0][0]} ms, {worst[0][1]} ms of it busy on it"
    log = live.host.mcp.status("n").log_tail
    assert log[-1] == "info: log line 9999"  # the log view has the last lines, nothing more


def test_an_attached_resource_the_server_updates_is_sent_anew_and_view_context_says_so(
    qtbot: QtBot, live: DesktopApp
) -> None:
    from agent_core.mcp import ResourceInfo
    from desktop.models.context_items import Column
    from tests.support.desktop_driver import open_context

    controller = live.window.current_controller()
    assert controller is not None
    manager = live.host.mcp
    uri = "demo://resource/dynamic/text/1"  # its text carries the time it was read
    attached: list[object] = []
    resource = ResourceInfo("everything", uri, "Resource 1", title="Dynamic text")
    controller.attach_resource(manager, resource, attached.append, attached.append)
    qtbot.waitUntil(lambda: bool(attached), timeout=WAIT_MS)
    first = controller.session.attached_resources()[attached[0]].text  # type: ignore[index]
    toggled: list[object] = []
    live.host.bridge.submit(
        manager.call_tool("everything", "toggle-subscriber-updates", {}), toggled.append, toggled.append
    )
    # The first update comes at once, the next 5 s later: by then the text's time has changed.
    qtbot.waitUntil(lambda: (manager.resource_version("everything", uri) or 0) >= 2, timeout=20_000)
    live.host.bridge.submit(
        manager.call_tool("everything", "toggle-subscriber-updates", {}), toggled.append, toggled.append
    )
    provider = scripted(live)
    provider.enqueue_reply("It changed.")
    send(qtbot, live, "What does the resource say now?")
    qtbot.waitUntil(lambda: idle(live), timeout=WAIT_MS)
    now = controller.session.attached_resources()[attached[0]].text  # type: ignore[index]
    assert now != first
    sent = "\n".join(m.content or "" for m in provider.requests[-1].messages)
    assert now in sent and first not in sent
    dialog = open_context(qtbot, live)
    proxy = dialog.columns["reference"].items_view.proxy  # type: ignore[index]
    descriptions = [proxy.index(row, Column.DESCRIPTION).data() for row in range(proxy.rowCount())]
    assert any("Changed by the server once since attached" in (d or "") for d in descriptions), descriptions
    screenshot(dialog, "view_context_resource_changed")


# --- a tool that runs as a protocol task (server-everything's simulate-research-query) ---

RESEARCH = "everything__simulate-research-query"
RESEARCH_STAGES = ("Gathering sources", "Analyzing content", "Synthesizing findings", "Generating report")


def test_a_task_shows_its_status_on_the_tool_row_then_its_result(qtbot: QtBot, live: DesktopApp) -> None:
    provider = scripted(live)
    provider.enqueue_tool_call(RESEARCH, {"topic": "tide pools"})
    provider.enqueue_reply("Here is the report.")
    seen = reported_progress(live)
    send(qtbot, live, "Research tide pools.")
    qtbot.waitUntil(lambda: running_with_progress(live), timeout=WAIT_MS)
    widget = tool_widget(live)
    assert widget is not None
    # The server moves through a stage a second and the client polls about as often, so under load
    # any stage may be the one seen: wait for one, not for a particular one.
    qtbot.waitUntil(lambda: any(stage in widget.toggle.text() for stage in RESEARCH_STAGES), timeout=WAIT_MS)
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
