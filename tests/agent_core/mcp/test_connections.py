"""Starting, calling and losing real MCP servers: our demo server over stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

from agent_core.agent.schema import StdioServerConfig, StreamableHttpServerConfig
from agent_core.mcp import McpManager, McpServerError, ServerState, ServerStatus, UnknownServerError
from tests.support.mcp_servers import demo, free_port

pytestmark = pytest.mark.anyio


async def test_a_stdio_server_starts_reports_itself_and_runs_tools() -> None:
    async with McpManager({"demo": demo()}) as manager:
        status = manager.status("demo")
        assert status.state is ServerState.READY
        assert (status.server_name, status.server_version) == ("demo", "1.2.3")
        assert status.instructions == "A server for ContextDesk's tests."
        assert "demo server 'demo' starting" in status.log_tail
        names = {t.name for t in manager.tools()}
        assert {"echo", "add", "fail", "hang", "crash"} <= names
        add = next(t for t in manager.tools() if t.name == "add")
        assert add.server == "demo" and add.description == "Add two integers."
        assert set(add.input_schema["properties"]) == {"a", "b"}

        result = await manager.call_tool("demo", "add", {"a": 2, "b": 3})
        assert (result.text, result.is_error) == ("5", False)
        assert result.structured == {"result": 5}
        assert result.elapsed_seconds > 0
        assert await manager.ping("demo") > 0
    assert manager.status("demo").state is ServerState.STOPPED


async def test_a_tool_error_comes_back_as_an_error_result() -> None:
    async with McpManager({"demo": demo()}) as manager:
        result = await manager.call_tool("demo", "fail", {"message": "the disk is full"})
        assert result.is_error and "the disk is full" in result.text
        unknown = await manager.call_tool("demo", "no_such_tool", {})
        assert unknown.is_error and "no_such_tool" in unknown.text


async def test_a_server_over_streamable_http(demo_http_url: str) -> None:
    config = StreamableHttpServerConfig(type="streamable-http", url=demo_http_url)
    async with McpManager({"remote": config}) as manager:
        assert manager.status("remote").state is ServerState.READY
        result = await manager.call_tool("remote", "echo", {"text": "over http"})
        assert result.text == "over http" and not result.is_error
        assert await manager.ping("remote") > 0


async def test_headers_are_resolved_from_the_environment(
    demo_http_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEMO_TOKEN", "t0ken")
    config = StreamableHttpServerConfig(
        type="streamable-http",
        url=demo_http_url,
        headers={"Authorization": "Bearer ${DEMO_TOKEN}", "X-Key": "env://DEMO_TOKEN"},
    )
    async with McpManager({"remote": config}) as manager:
        assert manager.status("remote").state is ServerState.READY
    missing = StreamableHttpServerConfig(
        type="streamable-http", url=demo_http_url, headers={"Authorization": "env://NOT_SET_ANYWHERE"}
    )
    async with McpManager({"remote": missing}) as manager:
        status = manager.status("remote")
        assert status.state is ServerState.FAILED
        assert (
            status.reason and "NOT_SET_ANYWHERE" in status.reason and "set NOT_SET_ANYWHERE" in status.reason
        )


async def test_env_values_reach_a_stdio_server_and_path_is_inherited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_FOR_SERVER", "s3cret")
    script = tmp_path / "show_env.py"
    script.write_text(
        "import os, sys\n"
        "print('GREETING=' + os.environ['GREETING'], 'HAS_PATH=' + str('PATH' in os.environ), file=sys.stderr)\n"
        f"sys.argv = ['demo']\nexec(open({str(demo().args[0])!r}).read())\n"
    )
    config = StdioServerConfig(
        command=sys.executable,
        args=[str(script)],
        env={"GREETING": "env://SECRET_FOR_SERVER"},
        cwd=str(tmp_path),
    )
    async with McpManager({"envy": config}) as manager:
        assert manager.status("envy").state is ServerState.READY
        assert "GREETING=s3cret HAS_PATH=True" in manager.status("envy").log_tail


async def test_a_missing_command_says_how_to_install_it() -> None:
    servers = {
        "node": StdioServerConfig(command="npx-not-installed-here", args=["-y", "x"]),
        "npx": StdioServerConfig(command="/nonexistent/bin/npx", args=["-y", "x"]),
    }
    async with McpManager(servers) as manager:
        generic, npx = manager.status("node"), manager.status("npx")
    assert generic.state is ServerState.FAILED and npx.state is ServerState.FAILED
    assert generic.reason and "`npx-not-installed-here` was not found" in generic.reason
    assert "add its folder to PATH" in generic.reason
    assert npx.reason and "install Node.js 18+" in npx.reason and "fix `command`" in npx.reason


async def test_a_command_that_is_not_executable_says_permission_denied(tmp_path: Path) -> None:
    script = tmp_path / "server.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o644)
    async with McpManager({"local": StdioServerConfig(command=str(script))}) as manager:
        status = manager.status("local")
    assert status.state is ServerState.FAILED
    assert status.reason and "permission denied" in status.reason and "chmod +x" in status.reason


async def test_a_missing_cwd_is_reported(tmp_path: Path) -> None:
    async with McpManager({"demo": demo(cwd=str(tmp_path / "gone"))}) as manager:
        status = manager.status("demo")
    assert status.state is ServerState.FAILED
    assert status.reason and "does not exist" in status.reason and "cwd" in status.reason


async def test_connection_refused_is_reported_with_a_fix() -> None:
    config = StreamableHttpServerConfig(type="streamable-http", url=f"http://127.0.0.1:{free_port()}/mcp")
    async with McpManager({"remote": config}) as manager:
        status = manager.status("remote")
    assert status.state is ServerState.FAILED
    assert status.reason and "connection refused" in status.reason and "start the server" in status.reason


async def test_a_server_that_exits_at_start_shows_its_stderr() -> None:
    async with McpManager({"demo": demo("--exit-at-start")}) as manager:
        status = manager.status("demo")
    assert status.state is ServerState.FAILED
    assert status.reason and "exited unexpectedly" in status.reason
    assert "missing configuration, giving up" in status.reason


async def test_garbage_on_stdout_is_named_as_the_cause() -> None:
    async with McpManager({"junk": demo("--garbage-only", start_timeout_seconds=3)}) as manager:
        status = manager.status("junk")
    assert status.state is ServerState.FAILED
    assert status.reason and "not JSON-RPC" in status.reason and "Welcome to my server" in status.reason
    assert "log to stderr" in status.reason


async def test_a_banner_before_json_rpc_is_logged_but_the_server_works() -> None:
    async with McpManager({"chatty": demo("--banner")}) as manager:
        status = manager.status("chatty")
        assert status.state is ServerState.READY
        assert any("not JSON-RPC" in line and "Server v1.2.3 ready" in line for line in status.log_tail)


async def test_a_server_that_never_answers_fails_at_the_start_timeout() -> None:
    started = time.monotonic()
    async with McpManager({"mute": demo("--silent", start_timeout_seconds=1)}) as manager:
        status = manager.status("mute")
    assert status.state is ServerState.FAILED
    assert status.reason and "did not finish starting within 1 s" in status.reason
    assert time.monotonic() - started < 10


async def test_a_call_that_never_returns_times_out_as_an_error_result() -> None:
    async with McpManager({"demo": demo(call_timeout_seconds=0.5)}) as manager:
        result = await manager.call_tool("demo", "hang", {})
        assert result.is_error and "did not answer the call to hang within 0.5 s" in result.text
        assert result.ended == "timed out after 0.5 s"  # ContextDesk's message, not the tool's answer
        assert 0.4 < result.elapsed_seconds < 5
        # The server is still usable after a timed-out call.
        assert (await manager.call_tool("demo", "echo", {"text": "still here"})).text == "still here"


async def test_a_server_that_dies_during_a_call_is_reported_and_can_be_restarted() -> None:
    seen: list[ServerStatus] = []
    failed = asyncio.Event()

    def on_status(status: ServerStatus) -> None:
        seen.append(status)
        if status.state is ServerState.FAILED:
            failed.set()

    async with McpManager({"demo": demo()}, on_status=on_status) as manager:
        result = await manager.call_tool("demo", "crash", {})
        assert result.is_error
        assert "exited unexpectedly" in result.text and "crashing on purpose" in result.text

        await asyncio.wait_for(failed.wait(), 10)
        failed = manager.status("demo")
        assert failed.reason and "crashing on purpose" in failed.reason
        assert manager.tools() == []

        dead = await manager.call_tool("demo", "echo", {"text": "hello?"})
        assert dead.is_error and "is failed" in dead.text and dead.elapsed_seconds < 1
        with pytest.raises(McpServerError):
            await manager.ping("demo")

        assert (await manager.restart("demo")).state is ServerState.READY
        assert (await manager.call_tool("demo", "echo", {"text": "back"})).text == "back"
    states = [s.state for s in seen]
    assert states[:2] == [ServerState.STARTING, ServerState.READY]
    assert ServerState.FAILED in states and states[-1] is ServerState.STOPPED


async def test_one_broken_or_slow_server_does_not_delay_or_break_the_others() -> None:
    servers = {
        "mute": demo("--silent", start_timeout_seconds=3),
        "missing": StdioServerConfig(command="no-such-mcp-server"),
        "good": demo(),
        "off": demo(enabled=False),
    }
    ready_at: dict[str, float] = {}
    started = time.monotonic()

    def on_status(status: ServerStatus) -> None:
        if status.state is ServerState.READY:
            ready_at[status.name] = time.monotonic() - started

    async with McpManager(servers, on_status=on_status) as manager:
        states = {s.name: s.state for s in manager.statuses()}
        assert states == {
            "mute": ServerState.FAILED,
            "missing": ServerState.FAILED,
            "good": ServerState.READY,
            "off": ServerState.DISABLED,
        }
        assert ready_at["good"] < 2.9  # did not wait for the silent one
        assert (await manager.call_tool("good", "echo", {"text": "fine"})).text == "fine"
        off = await manager.call_tool("off", "echo", {"text": "x"})
        assert off.is_error and "disabled" in off.text
        # Restarting one server leaves the others running.
        await manager.restart("missing")
        assert manager.status("good").state is ServerState.READY


async def test_a_hundred_tools_on_one_server() -> None:
    async with McpManager({"big": demo("--extra-tools", "100")}) as manager:
        tools = [t for t in manager.tools() if t.name.startswith("tool_")]
        assert len(tools) == 100
        assert manager.status("big").tool_count >= 100
        assert (await manager.call_tool("big", "tool_099", {"value": 4})).text == "tool 99: 4"


async def test_two_servers_with_the_same_tool_names_are_both_usable() -> None:
    async with McpManager({"one": demo("--name", "one"), "two": demo("--name", "two")}) as manager:
        echoes = [t for t in manager.tools() if t.name == "echo"]
        assert sorted(t.server for t in echoes) == ["one", "two"]
        assert echoes[0].fingerprint != echoes[1].fingerprint
        first = await manager.call_tool("one", "echo", {"text": "1"})
        second = await manager.call_tool("two", "echo", {"text": "2"})
        assert (first.server, first.text, second.server, second.text) == ("one", "1", "two", "2")


async def test_resources_and_prompts_of_a_server() -> None:
    async with McpManager({"demo": demo()}) as manager:
        resources = await manager.list_resources("demo")
        assert [(r.uri, r.name, r.mime_type) for r in resources] == [
            ("demo://greeting", "greeting", "text/plain")
        ]
        content = await manager.read_resource("demo", "demo://greeting")
        assert content.text == "Hello from the demo server"
        assert [r.uri for r in await manager.list_resources()] == ["demo://greeting"]

        prompts = await manager.list_prompts("demo")
        assert [(p.name, [(a.name, a.required) for a in p.arguments]) for p in prompts] == [
            ("review", [("code", True), ("language", False)])
        ]
        prompt = await manager.get_prompt("demo", "review", {"code": "x = 1"})
        assert prompt.text == "Please review this python code:\nx = 1"
        with pytest.raises(McpServerError, match="demo://nothing"):
            await manager.read_resource("demo", "demo://nothing")


async def test_an_unknown_server_name_is_an_error_listing_the_servers() -> None:
    manager = McpManager({"demo": demo(enabled=False)})
    with pytest.raises(UnknownServerError, match=r"no MCP server named 'nope'.*servers: demo"):
        await manager.call_tool("nope", "x", {})
