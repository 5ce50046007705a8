"""A view's ``tools/call`` and ``resources/read``, proxied to its own server through the chat: the
same approval as the model's calls (granted, refused, allowed for the chat), the visibility rules
(a model-only tool, another server's tool), the rate limit. Real servers, a real chat."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_core.chat.events import APP_ORIGIN, ApprovalDecision
from agent_core.context.items import ItemRef
from agent_core.mcp import McpManager
from agent_core.mcp.apps import AppLimits
from tests.support.app_chats import ViewDriver, called_in_chat, initialized_view, request
from tests.support.mcp_servers import apps, npm_server

pytestmark = pytest.mark.anyio

INCREMENT = {"name": "increment", "arguments": {}}


async def test_a_views_call_runs_once_the_user_allows_it_and_its_result_reaches_the_view(
    tmp_path: Path,
) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver(answer=ApprovalDecision.ALLOW_ONCE)
        host = await initialized_view(session, manager, record, driver)
        first = await host.handle(request(2, "tools/call", INCREMENT))
        second = await host.handle(request(3, "tools/call", INCREMENT))
    assert first is not None and first["result"]["content"] == [
        {"type": "text", "text": "The counter is at 1."}
    ]
    assert second is not None and second["result"]["content"][0]["text"] == "The counter is at 2."
    assert [(q.server, q.tool, q.origin) for q in driver.asked] == [("apps", "increment", APP_ORIGIN)] * 2
    assert driver.asked[0].asker == "The app view of apps"


async def test_a_call_the_user_denies_is_not_run_and_the_view_gets_an_error(tmp_path: Path) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver(answer=ApprovalDecision.DENY)
        host = await initialized_view(session, manager, record, driver)
        answer = await host.handle(request(2, "tools/call", INCREMENT))
        counter = await manager.call_tool("apps", "show_counter")
    assert answer is not None and answer["error"] == {
        "code": -32000,
        "message": "The user denied this tool call.",
    }
    assert counter.text == "The counter is at 0."


async def test_allowing_a_views_call_for_the_chat_stops_the_questions_for_that_tool(tmp_path: Path) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver(answer=ApprovalDecision.ALLOW_FOR_CHAT)
        host = await initialized_view(session, manager, record, driver)
        await host.handle(request(2, "tools/call", INCREMENT))
        answer = await host.handle(request(3, "tools/call", INCREMENT))
    assert answer is not None and answer["result"]["content"][0]["text"] == "The counter is at 2."
    assert len(driver.asked) == 1
    assert ItemRef("tool", "increment", "apps") in session.allowed_tools


async def test_a_tool_for_the_model_only_is_refused_to_the_view_without_asking(tmp_path: Path) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver()
        host = await initialized_view(session, manager, record, driver)
        answer = await host.handle(request(2, "tools/call", {"name": "reset"}))
    assert answer is not None and answer["error"]["code"] == -32000
    assert "for the model only" in answer["error"]["message"]
    assert driver.asked == []


async def test_a_view_reaches_only_its_own_servers_tools(tmp_path: Path, node_modules: Path) -> None:
    servers = {
        "apps": apps(),
        "monitor": npm_server(
            node_modules, "server-system-monitor", "--stdio", toolDefaults={"permissionRequired": False}
        ),
    }
    async with McpManager(servers) as manager:
        session, record = await called_in_chat(tmp_path, manager, "monitor", "get-system-info")
        driver = ViewDriver()
        host = await initialized_view(session, manager, record, driver)
        foreign = await host.handle(request(2, "tools/call", INCREMENT))
        own = await host.handle(request(3, "tools/call", {"name": "poll-system-stats", "arguments": {}}))
    assert foreign is not None and "offers no tool 'increment'" in foreign["error"]["message"]
    # The app-only tool the model never sees is the view's to call (its server's setting: no question).
    assert own is not None and own["result"]["isError"] is False
    assert "memory" in own["result"]["structuredContent"]
    assert driver.asked == []


async def test_calls_over_the_rate_limit_are_refused_until_the_minute_passes(tmp_path: Path) -> None:
    async with McpManager({"apps": apps(toolDefaults={"permissionRequired": False})}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver()
        host = await initialized_view(
            session, manager, record, driver, limits=AppLimits(max_calls_per_minute=2)
        )
        answers = [await host.handle(request(i, "tools/call", INCREMENT)) for i in (2, 3, 4)]
    assert [a is not None and "result" in a for a in answers] == [True, True, False]
    assert answers[2] is not None and "over 2 calls in a minute" in answers[2]["error"]["message"]


async def test_a_view_reads_a_resource_of_its_own_server(tmp_path: Path) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver()
        host = await initialized_view(session, manager, record, driver)
        answer = await host.handle(request(2, "resources/read", {"uri": "ui://apps/counter.html"}))
        missing = await host.handle(request(3, "resources/read", {"uri": "ui://apps/gone.html"}))
    assert answer is not None
    [content] = answer["result"]["contents"]
    assert content["mimeType"] == "text/html;profile=mcp-app" and "<p id='count'>" in content["text"]
    assert missing is not None and missing["error"]["code"] == -32000


async def test_a_call_over_the_calls_in_flight_is_refused_while_the_others_run(tmp_path: Path) -> None:
    async with McpManager({"apps": apps()}) as manager:
        session, record = await called_in_chat(tmp_path, manager, "apps", "show_counter")
        driver = ViewDriver(answer=None)  # the first call waits on the user
        host = await initialized_view(
            session, manager, record, driver, limits=AppLimits(max_calls_in_flight=1)
        )
        waiting = asyncio.ensure_future(host.handle(request(2, "tools/call", INCREMENT)))
        await asyncio.wait_for(driver.asking.wait(), 10)
        refused = await host.handle(request(3, "tools/call", INCREMENT))
        driver.asked[0].decide(ApprovalDecision.ALLOW_ONCE)
        first = await asyncio.wait_for(waiting, 10)
        after = await host.handle(request(4, "resources/read", {"uri": "ui://apps/counter.html"}))
    assert refused is not None and "already has 1 calls running" in refused["error"]["message"]
    assert first is not None and first["result"]["content"][0]["text"] == "The counter is at 1."
    assert after is not None and "result" in after  # the slot is free again
