"""MCP Apps in the desktop chat, with the real reference server @modelcontextprotocol/server-basic-
vanillajs added to the agent as a user adds it: its view renders under the tool call with the call's
result, a button in the view calls a tool through the chat's approval and the result reaches the
view, a denied call reaches it as an error, the view is sized by what it asks, torn down with the
chat, and shown again from the saved call when the chat is opened later."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from agent_core.chat.events import APP_ORIGIN, ApprovalDecision
from agent_core.mcp.types import ServerState
from desktop.app import DesktopApp, create_app
from desktop.controllers.chat_controller import ChatController
from desktop.mcp_apps.component import missing_note
from desktop.mcp_apps.engine import webengine_available
from desktop.views.approval_widget import ApprovalWidget
from desktop.views.tool_call_widget import ToolCallWidget
from tests.support.desktop_driver import WAIT_MS, idle, scripted, send
from tests.support.mcp_servers import NODE_MODULES, npm_server
from tests.support.server_trust import trust_servers

pytestmark = pytest.mark.skipif(
    not webengine_available(), reason="Qt WebEngine is not installed (the `apps` extra)"
)

SERVER = "server-basic-vanillajs"


def add_basic_server(agent_dir: Path) -> None:
    """The reference server in agent.yaml, its tools asked about first, trusted once."""
    if not (NODE_MODULES / "@modelcontextprotocol" / SERVER).is_dir():
        pytest.skip("tests/node_modules is not installed (npm ci in tests/)")
    server = npm_server(NODE_MODULES, SERVER, "--stdio")
    config = agent_dir / "agent.yaml"
    config.write_text(
        config.read_text()
        + f"  basic:\n    command: {json.dumps(server.command)}\n    args: {json.dumps(server.args)}\n"
        "    toolDefaults: {permissionRequired: true}\n"
    )
    trust_servers(agent_dir)


def open_app(qtbot: QtBot, agent_dir: Path) -> DesktopApp:
    create_app()
    app = DesktopApp()
    app.start(agent_dir)

    def ready() -> bool:
        manager = app.host.mcp
        return manager is not None and all(s.state is ServerState.READY for s in manager.statuses())

    qtbot.waitUntil(lambda: app.window.current_controller() is not None and ready(), timeout=WAIT_MS)
    return app


@pytest.fixture
def with_basic(qtbot: QtBot, agent_dir: Path) -> Iterator[DesktopApp]:
    add_basic_server(agent_dir)
    app = open_app(qtbot, agent_dir)
    try:
        yield app
    finally:
        app.close()


def controller_of(app: DesktopApp) -> ChatController:
    controller = app.window.current_controller()
    assert controller is not None
    return controller


def approve_next(qtbot: QtBot, app: DesktopApp, decision: ApprovalDecision) -> Any:
    """Wait for a pending approval in the transcript and answer it; its question."""
    controller = controller_of(app)

    def pending() -> int | None:
        for row, entry in enumerate(controller.conversation.entries()):
            if entry.kind == "approval" and entry.status == "pending" and entry.decision is None:
                return row
        return None

    qtbot.waitUntil(lambda: pending() is not None, timeout=WAIT_MS)
    row = pending()
    assert row is not None
    question = controller.conversation.entry(row).approval
    controller.decide(row, decision)
    return question


def call_get_time(qtbot: QtBot, app: DesktopApp) -> ToolCallWidget:
    """The model calls basic.get-time (the user allows it); its row."""
    provider = scripted(app)
    provider.enqueue_tool_calls([("basic__get-time", {}, None)])
    provider.enqueue_reply("Here is the time.")
    send(qtbot, app, "What time is it on the server?")
    approve_next(qtbot, app, ApprovalDecision.ALLOW_ONCE)
    qtbot.waitUntil(lambda: idle(app), timeout=WAIT_MS)
    view = app.window.current_view()
    assert view is not None
    (row,) = [w for w in view.conversation.widgets() if isinstance(w, ToolCallWidget)]
    return row


def run_in_app(qtbot: QtBot, view: Any, script: str) -> Any:
    """Run ``script`` in the app's own frame (as a user's click would act there); its value, or
    None while the frame is not there yet."""
    frames = view.page().mainFrame().children()
    if not frames:
        return None
    (frame,) = frames
    with qtbot.waitCallback(timeout=WAIT_MS) as done:
        frame.runJavaScript(script, 0, done)
    return done.args[0]


def wait_for_answer(qtbot: QtBot, view: Any, key: str) -> dict[str, Any]:
    """The next response the host sends the view that holds ``key`` ("result" or "error")."""

    def is_answer(text: str) -> bool:
        message = json.loads(text)
        return "id" in message and key in message and "method" not in message

    with qtbot.waitSignal(view._relay.toView, timeout=WAIT_MS, check_params_cb=is_answer) as answer:
        pass
    return json.loads(answer.args[0])


def server_time(qtbot: QtBot, view: Any) -> str:
    return str(run_in_app(qtbot, view, "document.getElementById('server-time').textContent"))


def called_time(record: Any) -> str:
    """The time the call returned (its structured content), which the view shows."""
    assert isinstance(record.structured, dict)
    return str(record.structured["time"])


def test_a_reference_app_renders_under_its_call_and_its_button_calls_through_approval(
    qtbot: QtBot, with_basic: DesktopApp
) -> None:
    from desktop.mcp_apps.app_view import FIRST_HEIGHT, MAX_VIEW_HEIGHT, MIN_VIEW_HEIGHT, McpAppView

    row = call_get_time(qtbot, with_basic)
    slot = row.app_slot
    assert slot is not None
    qtbot.waitUntil(lambda: isinstance(slot.view, McpAppView), timeout=WAIT_MS)
    view = slot.view
    assert isinstance(view, McpAppView)
    record = row.entry.tool_call if row.entry is not None else None
    assert record is not None and record.ui_resource_uri == "ui://get-time/mcp-app.html"
    # The view is initialized and shows the call's own result (tool-result from the host).
    qtbot.waitUntil(lambda: server_time(qtbot, view) == called_time(record), timeout=WAIT_MS)
    # It says its size: the view takes it, within bounds.
    if view.height() == FIRST_HEIGHT:
        with qtbot.waitSignal(view.resized, timeout=WAIT_MS):
            pass
    assert MIN_VIEW_HEIGHT <= view.height() <= MAX_VIEW_HEIGHT

    # Its button calls get-time through the chat: asked like the model's call, then answered.
    run_in_app(qtbot, view, "document.getElementById('get-time-btn').click()")
    question = approve_next(qtbot, with_basic, ApprovalDecision.ALLOW_ONCE)
    assert (question.server, question.tool, question.origin) == ("basic", "get-time", APP_ORIGIN)
    chat = with_basic.window.current_view()
    assert chat is not None
    card = [w for w in chat.conversation.widgets() if isinstance(w, ApprovalWidget)][-1]
    assert card.question.text().startswith("The app view of <b>basic</b> wants to run <b>basic.get-time</b>")
    answer = wait_for_answer(qtbot, view, "result")
    new_time = answer["result"]["structuredContent"]["time"]
    qtbot.waitUntil(lambda: server_time(qtbot, view) == new_time, timeout=WAIT_MS)

    # Denied: the view hears an error, not a result.
    run_in_app(qtbot, view, "document.getElementById('get-time-btn').click()")
    approve_next(qtbot, with_basic, ApprovalDecision.DENY)
    denied = wait_for_answer(qtbot, view, "error")
    assert "denied" in denied["error"]["message"]


def test_the_view_goes_with_the_chat_and_comes_back_from_the_saved_call(
    qtbot: QtBot, agent_dir: Path
) -> None:
    from desktop.mcp_apps.app_view import McpAppView

    add_basic_server(agent_dir)
    app = open_app(qtbot, agent_dir)
    try:
        row = call_get_time(qtbot, app)
        slot = row.app_slot
        assert slot is not None
        qtbot.waitUntil(lambda: isinstance(slot.view, McpAppView), timeout=WAIT_MS)
        view = slot.view
        assert isinstance(view, McpAppView)
        record = row.entry.tool_call if row.entry is not None else None
        assert record is not None
        qtbot.waitUntil(lambda: server_time(qtbot, view) == called_time(record), timeout=WAIT_MS)
        controller = controller_of(app)
        apps = controller.apps
        assert apps is not None
        session_id = controller.id
        # Closing the chat asks the view to finish (ui/resource-teardown) and it answers.
        teardown_sent = lambda text: json.loads(text).get("method") == "ui/resource-teardown"  # noqa: E731
        with qtbot.waitSignal(view._relay.toView, timeout=WAIT_MS, check_params_cb=teardown_sent):
            app.window.close_tab(app.window.tabs.currentIndex())
        assert apps._live == {}
    finally:
        app.close()

    # Opened again later: the saved call offers its view, which comes back with the saved result.
    app = open_app(qtbot, agent_dir)
    try:
        app.window.open_chat(session_id)
        qtbot.waitUntil(lambda: controller_of(app).id == session_id and idle(app), timeout=WAIT_MS)
        current = app.window.current_view()
        assert current is not None
        (row,) = [w for w in current.conversation.widgets() if isinstance(w, ToolCallWidget)]
        slot = row.app_slot
        assert slot is not None
        assert slot.view is None and not slot.open_button.isHidden()
        slot.open_button.click()
        qtbot.waitUntil(lambda: isinstance(slot.view, McpAppView), timeout=WAIT_MS)
        reopened = slot.view
        qtbot.waitUntil(lambda: server_time(qtbot, reopened) == called_time(record), timeout=WAIT_MS)
    finally:
        app.close()


def test_without_web_engine_the_chat_says_a_view_exists_and_offers_to_add_it(
    qtbot: QtBot, with_basic: DesktopApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    import desktop.mcp_apps.chat_apps as chat_apps
    import desktop.mcp_apps.component as component

    monkeypatch.setattr(chat_apps, "webengine_available", lambda: False)
    row = call_get_time(qtbot, with_basic)
    slot = row.app_slot
    assert slot is not None
    assert slot.view is None and slot.note.text() == missing_note()
    assert "pip install 'contextdesk[apps]'" in slot.note.text()
    assert row.entry is not None and row.entry.tool_call is not None
    assert row.entry.tool_call.result  # the text result is there as for any call
    # Run from a Python environment with pip: it offers to add the component. pip itself is the
    # registry's client; here it is stood in for by a command that succeeds at once.
    assert not slot.add_button.isHidden()
    monkeypatch.setattr(component, "install_command", lambda: [sys.executable, "-c", "print('installed')"])
    slot.add_button.click()
    qtbot.waitUntil(lambda: "Restart ContextDesk" in slot.note.text(), timeout=WAIT_MS)
    assert slot.add_button.isHidden()


def test_the_component_matches_this_pyside_and_an_installer_cannot_add_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import PySide6

    from desktop.mcp_apps.component import can_add_component, install_command

    command = install_command()
    assert command[:4] == [sys.executable, "-m", "pip", "install"]
    assert f"PySide6-Addons=={PySide6.__version__}" in command
    assert f"PySide6-WebEngine=={PySide6.__version__}.*" in command
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert not can_add_component()
    assert "does not include Qt WebEngine" in missing_note()


def test_a_chat_runs_a_bounded_number_of_views_and_the_oldest_offers_to_come_back(
    qtbot: QtBot, with_basic: DesktopApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    import desktop.mcp_apps.chat_apps as chat_apps
    from desktop.mcp_apps.app_view import McpAppView

    monkeypatch.setattr(chat_apps, "MAX_LIVE_VIEWS", 1)
    first = call_get_time(qtbot, with_basic)
    assert first.app_slot is not None
    qtbot.waitUntil(lambda: isinstance(first.app_slot.view, McpAppView), timeout=WAIT_MS)
    provider = scripted(with_basic)
    provider.enqueue_tool_calls([("basic__get-time", {}, None)])
    provider.enqueue_reply("Again.")
    send(qtbot, with_basic, "And now?")
    approve_next(qtbot, with_basic, ApprovalDecision.ALLOW_ONCE)
    qtbot.waitUntil(lambda: idle(with_basic), timeout=WAIT_MS)
    chat = with_basic.window.current_view()
    assert chat is not None
    second = [w for w in chat.conversation.widgets() if isinstance(w, ToolCallWidget)][-1]
    assert second is not first and second.app_slot is not None
    qtbot.waitUntil(lambda: isinstance(second.app_slot.view, McpAppView), timeout=WAIT_MS)
    # The first view was torn down (asked, then discarded) and offers itself again.
    qtbot.waitUntil(lambda: first.app_slot.view is None, timeout=WAIT_MS)
    assert "to make room" in first.app_slot.note.text()
    assert not first.app_slot.open_button.isHidden()
    apps = controller_of(with_basic).apps
    assert apps is not None and len(apps._live) == 1
