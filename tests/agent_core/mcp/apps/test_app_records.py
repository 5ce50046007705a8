"""A tool call with a UI, recorded and shown again: the saved record keeps what the view needs,
a chat opened later gets the view back (or the reason it cannot), what a view posts lands in the
reply's RequestContext, and the terminal says a UI is there. Real servers, a real chat store."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from agent_core.context.items import AppExchange
from agent_core.mcp import McpManager
from agent_core.mcp.apps import (
    AppContextUpdated,
    AppLimits,
    AppMessageRequested,
    AppUnavailableError,
    has_app,
    reopen_app_view,
)
from agent_core.store.chats import ChatStore
from agent_core.store.export import export_json, export_markdown
from agent_core.store.records import ToolCallRecord
from tests.support.app_chats import INITIALIZE, ViewDriver, called_in_chat, initialized_view, request
from tests.support.cli_runs import run, scripted_agent
from tests.support.mcp_servers import apps, npm_server
from tests.support.server_trust import trust_servers

pytestmark = pytest.mark.anyio

TIME_VIEW = "ui://get-time/mcp-app.html"


def saved_call(tmp_path: Path, session_id: str, call_id: str = "call-1") -> ToolCallRecord:
    """The call as a chat opened later reads it: from the database file, with a new store."""
    messages = ChatStore(tmp_path / "chats.sqlite3").messages(session_id)
    return next(c for m in messages for c in m.tool_calls if c.id == call_id)


async def test_a_reopened_chat_shows_the_calls_ui_again_with_its_recorded_input_and_result(
    tmp_path: Path, node_modules: Path
) -> None:
    servers = {"basic": npm_server(node_modules, "server-basic-vanillajs", "--stdio")}
    async with McpManager(servers) as manager:
        session, _ = await called_in_chat(tmp_path, manager, "basic", "get-time")
        record = saved_call(tmp_path, session.id)
        view = await reopen_app_view(manager, record)
        driver = ViewDriver()
        host = driver.host(session, manager, view, record)
        host.deliver_result(record)
        await host.handle(INITIALIZE)
        await host.handle({"jsonrpc": "2.0", "method": "ui/notifications/initialized"})
    assert has_app(record) and record.ui_resource_uri == TIME_VIEW
    assert (record.server, record.tool, dict(record.arguments)) == ("basic", "get-time", {})
    assert view.resource_uri == TIME_VIEW and "<html" in view.html.lower()
    result = driver.sent[1]["params"]
    assert driver.sent[1]["method"] == "ui/notifications/tool-result"
    assert result["structuredContent"] == record.structured
    assert result["structuredContent"]["time"] in result["content"][0]["text"]


async def test_a_call_without_a_ui_is_saved_without_one(tmp_path: Path) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, _ = await called_in_chat(tmp_path, manager, "apps", "reset")
        record = saved_call(tmp_path, session.id)
        with pytest.raises(AppUnavailableError, match="had no UI"):
            await reopen_app_view(manager, record)
    assert not has_app(record)


async def test_a_ui_that_cannot_come_back_says_why(tmp_path: Path) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, _ = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        record = saved_call(tmp_path, session.id)
        assert record.ui_resource_uri == "ui://apps/counter.html"
        with pytest.raises(AppUnavailableError) as changed:
            await reopen_app_view(manager, replace(record, ui_resource_uri="ui://apps/counter-v1.html"))
        await manager.stop("apps")
        with pytest.raises(AppUnavailableError) as stopped:
            await reopen_app_view(manager, record)
    async with McpManager({}) as without:
        with pytest.raises(AppUnavailableError) as gone:
            await reopen_app_view(without, record)
    assert "changed since this call (it was ui://apps/counter-v1.html, now ui://apps/counter.html)" in str(
        changed.value
    )
    assert "MCP server 'apps' is stopped" in str(stopped.value) and "Fix: start it" in str(stopped.value)
    assert "this agent has no MCP server 'apps' any more" in str(gone.value)


async def test_a_views_message_and_model_context_are_shown_and_kept_in_the_replys_request_context(
    tmp_path: Path,
) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver()
        host = await initialized_view(
            session, manager, record, driver, limits=AppLimits(max_recorded_text_chars=40)
        )
        said = {"role": "user", "content": [{"type": "text", "text": "Set the counter to 3, please."}]}
        answers = [
            await host.handle(request(2, "ui/message", said)),
            await host.handle(
                request(3, "ui/update-model-context", {"content": [{"type": "text", "text": "at 1"}]})
            ),
            await host.handle(
                request(4, "ui/update-model-context", {"structuredContent": {"count": 2, "pad": "z" * 100}})
            ),
        ]
    assert all(a is not None and a["result"] == {} for a in answers)
    latest = '{"count": 2, "pad": "' + "z" * 19 + "\n[cut at 40 characters]"
    assert driver.events == [
        AppMessageRequested("call-1", "Set the counter to 3, please."),
        AppContextUpdated("call-1", "at 1"),
        AppContextUpdated("call-1", latest),
    ]
    expected = (
        AppExchange("call-1", "apps", "show_counter", "message", "Set the counter to 3, please."),
        AppExchange("call-1", "apps", "show_counter", "model_context", latest),  # the last one replaces
    )
    store = ChatStore(tmp_path / "chats.sqlite3")
    messages = store.messages(session.id)
    replies = [m for m in messages if m.role == "assistant"]
    assert len(replies) == 2  # the turn that called the tool, and the answer after it
    assert [m.request_context.app_exchanges for m in replies if m.request_context] == [expected, expected]
    record_session = store.session(session.id)
    assert record_session is not None
    exported = json.loads(export_json(record_session, messages))
    assert (
        exported["messages"][1]["request_context"]["app_exchanges"][0]["text"]
        == "Set the counter to 3, please."
    )
    assert exported["messages"][1]["tool_calls"][0]["ui_resource_uri"] == "ui://apps/counter.html"
    assert "- `apps.show_counter` message: “Set the counter to 3, please.”" in export_markdown(
        record_session, messages
    )


async def test_a_view_that_posts_too_often_is_refused(tmp_path: Path) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver()
        host = await initialized_view(
            session, manager, record, driver, limits=AppLimits(max_posts_per_minute=1)
        )
        post = {"content": [{"type": "text", "text": "hi"}]}
        first = await host.handle(request(2, "ui/message", post))
        second = await host.handle(request(3, "ui/message", post))
    assert first is not None and first["result"] == {}
    assert second is not None and "over 1 times in a minute" in second["error"]["message"]
    assert len(driver.events) == 1


def test_the_terminal_prints_the_text_result_and_says_a_ui_is_available(
    tmp_path: Path, node_modules: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = npm_server(node_modules, "server-basic-vanillajs", "--stdio")
    agent = scripted_agent(
        tmp_path,
        [
            {"tool_calls": [{"name": "basic__get-time", "arguments": {}, "id": "c1"}]},
            {"reply": "It is late."},
        ],
    )
    config = (agent / "agent.yaml").read_text()
    basic = (
        f"mcpServers:\n  basic:\n    command: {json.dumps(server.command)}\n    args: {json.dumps(server.args)}\n"
        "    toolDefaults: {permissionRequired: false}\n"
    )
    (agent / "agent.yaml").write_text(config.replace("mcpServers:\n", basic, 1))
    trust_servers(agent)
    code, out, err = run(capsys, "chat", "--agent", str(agent), "what time is it?")
    assert code == 0, err
    assert "← result" in out and "It is late." in out
    assert f"[basic.get-time has a UI ({TIME_VIEW}): open this chat in the ContextDesk desktop app" in out
    code, out, err = run(capsys, "mcp", "call", str(agent), "basic", "get-time")
    assert code == 0
    assert out.strip()  # the text result
    assert f"[basic.get-time has a UI ({TIME_VIEW})" in err
    code, out, _ = run(capsys, "mcp", "call", str(agent), "basic", "get-time", "--json")
    assert json.loads(out)["uiResourceUri"] == TIME_VIEW
