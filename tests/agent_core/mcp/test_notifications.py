"""What servers tell the client unasked: progress, log messages, changed lists, updated resources;
and a call the client gives up on. Against server-everything and an SDK-built server."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_core.agent.schema import StdioServerConfig
from agent_core.mcp import McpManager, ServerState, ServerStatus
from agent_core.mcp._logs import LogBuffer
from agent_core.tools.progress import ToolProgress, listening_to_progress
from tests.support.mcp_servers import notifying, npm_server

pytestmark = pytest.mark.anyio


async def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait until ``condition`` holds, re-checking each time the loop runs others (bounded)."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


def everything(node_modules: Path, **settings: object) -> StdioServerConfig:
    return npm_server(node_modules, "server-everything", "stdio", **settings)


async def test_every_progress_step_of_a_long_running_operation_reaches_the_listener(
    node_modules: Path,
) -> None:
    async with McpManager({"everything": everything(node_modules)}) as manager:
        reports: list[ToolProgress] = []
        with listening_to_progress(reports.append):
            result = await manager.call_tool(
                "everything", "trigger-long-running-operation", {"duration": 1, "steps": 5}
            )
        assert not result.is_error, result.text
        assert [(r.progress, r.total) for r in reports] == [(step, 5) for step in range(1, 6)]
        assert reports[-1].describe() == "5/5 · 100%"


async def test_no_progress_token_is_sent_when_nobody_listens(node_modules: Path) -> None:
    # Without a listener the call is an ordinary one: the server reports nothing, the call succeeds.
    async with McpManager({"everything": everything(node_modules)}) as manager:
        result = await manager.call_tool(
            "everything", "trigger-long-running-operation", {"duration": 0.1, "steps": 2}
        )
        assert "completed" in result.text


async def test_a_flood_of_log_messages_is_kept_bounded_and_stays_out_of_the_result() -> None:
    async with McpManager({"n": notifying()}) as manager:
        result = await manager.call_tool("n", "flood_logs", {"count": 10_000})
        assert result.text == "sent 10000 log messages"
        tail = manager.status("n").log_tail
        assert tail[-1] == "info: log line 9999"
        connection = manager._connection("n")
        assert isinstance(connection._log, LogBuffer)
        assert len(connection._log.tail(10_000)) == 200  # the ring buffer's size, not 10,000


async def test_the_log_level_decides_which_server_messages_arrive(node_modules: Path) -> None:
    # server-everything logs each subscription at level "info".
    servers = {
        "chatty": everything(node_modules, logLevel="info"),
        "quiet": everything(node_modules, logLevel="error"),
    }
    async with McpManager(servers) as manager:
        uri = (await manager.list_resources("chatty"))[0].uri
        for name in servers:
            assert await manager.subscribe_resource(name, uri)
        assert any(
            "Received Subscribe Resource request" in line for line in manager.status("chatty").log_tail
        )
        assert not any("Subscribe" in line for line in manager.status("quiet").log_tail)


async def test_a_subscribed_resource_counts_the_updates_the_server_sends(node_modules: Path) -> None:
    statuses: list[ServerStatus] = []
    async with McpManager({"everything": everything(node_modules)}, on_status=statuses.append) as manager:
        uri = (await manager.list_resources("everything"))[0].uri
        assert manager.resource_version("everything", uri) is None
        assert await manager.subscribe_resource("everything", uri)
        assert manager.resource_version("everything", uri) == 0
        reported = len(statuses)
        toggled = await manager.call_tool("everything", "toggle-subscriber-updates", {})
        assert "Started" in toggled.text
        await wait_for(lambda: (manager.resource_version("everything", uri) or 0) >= 1)
        await wait_for(lambda: len(statuses) > reported)  # front ends hear of it through the status
        await manager.call_tool("everything", "toggle-subscriber-updates", {})


async def test_a_tool_added_at_runtime_is_listed_and_reported() -> None:
    statuses: list[ServerStatus] = []
    async with McpManager({"n": notifying()}, on_status=statuses.append) as manager:
        assert "fresh" not in {t.name for t in manager.tools()}
        assert (await manager.call_tool("n", "add_tool", {"name": "fresh"})).text == "added fresh"
        await wait_for(lambda: "fresh" in {t.name for t in manager.tools()})
        assert statuses[-1].state is ServerState.READY and statuses[-1].tool_count == len(manager.tools())
        assert (await manager.call_tool("n", "fresh", {})).text == "fresh ran"


async def test_a_flood_of_list_changes_costs_a_few_refreshes() -> None:
    async with McpManager({"n": notifying()}) as manager:
        for index in range(50):
            await manager.call_tool("n", "add_tool", {"name": f"extra_{index}"})
        await wait_for(lambda: "extra_49" in {t.name for t in manager.tools()})
        assert manager._connection("n")._lists.refreshes < 20


async def test_a_cancelled_call_tells_the_server_and_does_not_wait_for_it(tmp_path: Path) -> None:
    marker = tmp_path / "cancelled"
    async with McpManager({"n": notifying()}) as manager:
        started = asyncio.Event()
        with listening_to_progress(lambda _report: started.set()):
            call = asyncio.create_task(manager.call_tool("n", "wait_for_cancel", {"marker": str(marker)}))
        await asyncio.wait_for(started.wait(), 10)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(call, 1)
        await wait_for(marker.exists)  # the server's handler was cancelled: it got notifications/cancelled
        assert manager.status("n").state is ServerState.READY  # the connection goes on
        assert (await manager.call_tool("n", "add_tool", {"name": "after"})).text == "added after"
