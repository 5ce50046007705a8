"""The host side of the MCP Apps protocol, driven with the messages a view sends: the handshake
and what follows it, malformed and oversized messages, size changes, links, teardown. Real servers
behind it (the reference basic server from npm, the apps test server), a real chat."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agent_core import __version__
from agent_core.mcp import McpManager
from agent_core.mcp.apps import (
    AppLimits,
    AppLinkRequested,
    AppLogged,
    AppSizeChanged,
    HostContext,
    load_app_view,
)
from tests.support.app_chats import INITIALIZE, ViewDriver, called_in_chat, initialized_view, request
from tests.support.mcp_servers import apps, npm_server

pytestmark = pytest.mark.anyio


async def test_initialize_gives_the_host_context_and_the_call_input_and_result_follow_initialized(
    tmp_path: Path, node_modules: Path
) -> None:
    async with McpManager(
        {"basic": npm_server(node_modules, "server-basic-vanillajs", "--stdio")}
    ) as manager:
        session, record = await called_in_chat(tmp_path, manager, "basic", "get-time")
        view = await load_app_view(manager, "basic", "get-time")
        driver = ViewDriver()
        host = driver.host(
            session, manager, view, record, context=HostContext(theme="dark", locale="de-DE", max_height=600)
        )
        host.deliver_result(record)
        answer = await host.handle(json.dumps(INITIALIZE))  # as the view posts it: JSON text
        assert driver.sent == []  # nothing goes to a view before it says it is initialized
        assert await host.handle({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}) is None
    assert answer is not None and answer["id"] == 1
    result = answer["result"]
    assert result["protocolVersion"] == "2026-01-26"
    assert result["hostInfo"] == {"name": "ContextDesk", "version": __version__}
    assert result["hostCapabilities"]["serverTools"] == {}
    assert result["hostCapabilities"]["sandbox"]["csp"]["connectDomains"] == []
    context = result["hostContext"]
    assert (context["theme"], context["locale"], context["displayMode"]) == ("dark", "de-DE", "inline")
    assert context["containerDimensions"] == {"maxHeight": 600}
    assert context["toolInfo"]["id"] == "call-1"
    assert context["toolInfo"]["tool"]["name"] == "get-time"
    assert context["toolInfo"]["tool"]["_meta"]["ui"]["resourceUri"] == "ui://get-time/mcp-app.html"
    assert [m["method"] for m in driver.sent] == [
        "ui/notifications/tool-input",
        "ui/notifications/tool-result",
    ]
    assert driver.sent[0]["params"] == {"arguments": {}}
    delivered = driver.sent[1]["params"]
    assert delivered["isError"] is False
    assert delivered["structuredContent"]["time"] in delivered["content"][0]["text"]


async def test_a_result_that_comes_after_initialized_is_sent_at_once_and_only_once(tmp_path: Path) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver()
        host = driver.host(session, manager, await load_app_view(manager, "apps", "show_counter"), record)
        await host.handle(INITIALIZE)
        await host.handle({"jsonrpc": "2.0", "method": "ui/notifications/initialized"})
        host.deliver_result(record)
        host.deliver_result(record)
        host.deliver_cancelled("too late")
    assert [m["method"] for m in driver.sent] == [
        "ui/notifications/tool-input",
        "ui/notifications/tool-result",
    ]
    assert driver.sent[1]["params"]["content"] == [{"type": "text", "text": "The counter is at 0."}]


async def test_a_cancelled_call_is_told_to_the_view(tmp_path: Path) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver()
        host = driver.host(session, manager, await load_app_view(manager, "apps", "show_counter"), record)
        host.deliver_cancelled("The user stopped the reply.")
        await host.handle(INITIALIZE)
        await host.handle({"jsonrpc": "2.0", "method": "ui/notifications/initialized"})
    assert driver.sent[-1] == {
        "jsonrpc": "2.0",
        "method": "ui/notifications/tool-cancelled",
        "params": {"reason": "The user stopped the reply."},
    }


@pytest.mark.parametrize(
    ("message", "code", "answered_id"),
    [
        ("{not json", -32700, None),
        ("[1, 2]", -32600, None),
        ({"jsonrpc": "1.0", "id": 3, "method": "ping"}, -32600, 3),
        ({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": [1]}, -32602, 4),
        ({"jsonrpc": "2.0", "id": 5, "method": "no/such-method"}, -32601, 5),
        ({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": 5}}, -32602, 6),
        ({"jsonrpc": "2.0", "id": True, "method": "ping"}, -32600, None),
        ({"jsonrpc": "2.0", "id": 7}, -32600, 7),
        (
            {"jsonrpc": "2.0", "id": 8, "method": "ui/open-link", "params": {"url": "javascript:alert(1)"}},
            -32602,
            8,
        ),
        ({"jsonrpc": "2.0", "id": 9, "method": "ui/message", "params": {"role": "user"}}, -32602, 9),
    ],
)
async def test_a_malformed_message_gets_a_json_rpc_error_and_reaches_nothing(
    tmp_path: Path, message: Any, code: int, answered_id: int | None
) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver()
        host = await initialized_view(session, manager, record, driver)
        answer = await host.handle(message)
    assert answer is not None
    assert answer["error"]["code"] == code
    assert answer["id"] == answered_id
    assert driver.asked == [] and driver.events == [] and driver.sent == []


async def test_an_unknown_notification_or_a_stray_response_is_ignored(tmp_path: Path) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver()
        host = await initialized_view(session, manager, record, driver)
        assert await host.handle({"jsonrpc": "2.0", "method": "ui/notifications/whatever"}) is None
        assert await host.handle({"jsonrpc": "2.0", "id": 99, "result": {}}) is None
        assert (await host.handle(request(2, "ping")) or {})["result"] == {}


async def test_an_oversized_message_is_refused_before_anything_runs(tmp_path: Path) -> None:
    async with McpManager({"apps": apps(toolDefaults={"permissionRequired": False})}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver()
        host = await initialized_view(
            session, manager, record, driver, limits=AppLimits(max_message_chars=10_000)
        )
        big = request(2, "tools/call", {"name": "increment", "arguments": {"pad": "x" * 10_000}})
        as_object = await host.handle(big)
        as_text = await host.handle(json.dumps(big))
        counter = await manager.call_tool("apps", "show_counter")
    assert as_object is not None and as_object["error"]["code"] == -32600 and as_object["id"] == 2
    assert "over 10,000 characters" in as_object["error"]["message"]
    assert as_text is not None and as_text["error"]["code"] == -32600 and as_text["id"] is None
    assert counter.text == "The counter is at 0."  # increment never ran


async def test_size_changes_are_reported_clamped_and_nonsense_sizes_dropped(tmp_path: Path) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver()
        host = await initialized_view(session, manager, record, driver)
        for params in ({"width": 320, "height": 240.5}, {"width": 10**9, "height": 10}, {"width": "wide"}):
            await host.handle({"jsonrpc": "2.0", "method": "ui/notifications/size-changed", "params": params})
    assert driver.events == [AppSizeChanged("call-1", 320, 240), AppSizeChanged("call-1", 4096, 10)]


async def test_a_link_is_handed_to_the_front_end_and_a_log_line_is_bounded(tmp_path: Path) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver()
        host = await initialized_view(session, manager, record, driver)
        opened = await host.handle(request(2, "ui/open-link", {"url": "https://example.com/docs"}))
        await host.handle(
            {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "y" * 5000},
            }
        )
    assert opened is not None and opened["result"] == {}
    assert driver.events[0] == AppLinkRequested("call-1", "https://example.com/docs")
    assert driver.events[1] == AppLogged("call-1", "info", "y" * 2000)


async def test_closing_asks_the_view_to_tear_down_waits_for_its_answer_and_refuses_requests_after(
    tmp_path: Path,
) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver()
        host = await initialized_view(session, manager, record, driver)
        closing = asyncio.ensure_future(host.close())
        closing_again = asyncio.ensure_future(host.close())  # a second close waits for the same answer
        await asyncio.wait_for(driver.arrived.wait(), 5)  # both closes are waiting now
        assert [m["method"] for m in driver.sent] == ["ui/resource-teardown"]
        teardown = driver.sent[-1]
        assert teardown["method"] == "ui/resource-teardown"
        assert teardown["params"] == {"reason": "The chat was closed."}
        assert not closing.done()
        await host.handle({"jsonrpc": "2.0", "id": teardown["id"], "result": {}})
        await asyncio.wait_for(asyncio.gather(closing, closing_again), 5)
        after = await host.handle(request(3, "ping"))
    assert after is not None and after["error"]["message"] == "The view was closed."


async def test_a_view_that_never_answers_its_teardown_is_closed_after_the_wait(tmp_path: Path) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver()
        host = await initialized_view(
            session, manager, record, driver, limits=AppLimits(teardown_wait_seconds=0.05)
        )
        await asyncio.wait_for(host.close(), 5)
    assert host.closed


async def test_a_new_host_context_tells_the_view_only_what_changed(tmp_path: Path) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver()
        host = await initialized_view(session, manager, record, driver)
        host.set_context(HostContext(theme="dark"))
        host.set_context(HostContext(theme="dark"))  # nothing changed: nothing sent
    assert driver.sent == [
        {"jsonrpc": "2.0", "method": "ui/notifications/host-context-changed", "params": {"theme": "dark"}}
    ]
