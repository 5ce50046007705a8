"""Published MCP servers, installed by the test setup (PyPI: the dev extra; npm: tests/package.json)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.agent.schema import SseServerConfig, StdioServerConfig, StreamableHttpServerConfig
from agent_core.mcp import McpManager, ServerState
from tests.support.mcp_servers import free_port, npm_server, start_http_server, stop_process

pytestmark = pytest.mark.anyio


async def test_mcp_server_time_from_pypi() -> None:
    config = StdioServerConfig(
        command=sys.executable, args=["-m", "mcp_server_time", "--local-timezone", "UTC"]
    )
    async with McpManager({"time": config}) as manager:
        status = manager.status("time")
        assert status.state is ServerState.READY, status.reason
        assert status.server_name == "mcp-time"
        assert {"get_current_time", "convert_time"} <= {t.name for t in manager.tools()}
        result = await manager.call_tool("time", "get_current_time", {"timezone": "Europe/Paris"})
        assert not result.is_error
        assert json.loads(result.text)["timezone"] == "Europe/Paris"
        wrong = await manager.call_tool("time", "get_current_time", {"timezone": "Mars/Olympus"})
        assert wrong.is_error


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "test@example.com")
    git("config", "user.name", "Test")
    (repo / "notes.txt").write_text("first line\n")
    git("add", "notes.txt")
    git("commit", "-q", "-m", "Add notes")
    (repo / "notes.txt").write_text("first line\nsecond line\n")
    return repo


async def test_mcp_server_git_from_pypi(git_repo: Path) -> None:
    config = StdioServerConfig(
        command=sys.executable, args=["-m", "mcp_server_git", "--repository", str(git_repo)]
    )
    async with McpManager({"git": config}) as manager:
        assert manager.status("git").state is ServerState.READY, manager.status("git").reason
        assert {"git_status", "git_log", "git_diff_unstaged"} <= {t.name for t in manager.tools()}
        log = await manager.call_tool("git", "git_log", {"repo_path": str(git_repo)})
        assert "Add notes" in log.text and not log.is_error
        diff = await manager.call_tool("git", "git_diff_unstaged", {"repo_path": str(git_repo)})
        assert "+second line" in diff.text


async def test_server_everything_over_stdio(node_modules: Path) -> None:
    async with McpManager({"everything": npm_server(node_modules, "server-everything", "stdio")}) as manager:
        status = manager.status("everything")
        assert status.state is ServerState.READY, status.reason
        tools = {t.name: t for t in manager.tools()}
        assert {"echo", "get-sum"} <= set(tools)
        assert "properties" in tools["get-sum"].input_schema
        echo = await manager.call_tool("everything", "echo", {"message": "hi"})
        assert "hi" in echo.text and not echo.is_error
        total = await manager.call_tool("everything", "get-sum", {"a": 2, "b": 40})
        assert "42" in total.text
        bad = await manager.call_tool("everything", "get-sum", {"a": "two"})
        assert bad.is_error
        assert await manager.ping("everything") > 0

        resources = await manager.list_resources("everything")
        assert resources
        content = await manager.read_resource("everything", resources[0].uri)
        assert content.parts and content.uri == resources[0].uri
        prompts = {p.name: p for p in await manager.list_prompts("everything")}
        assert prompts
        simple = next(p for p in prompts.values() if not any(a.required for a in p.arguments))
        prompt = await manager.get_prompt("everything", simple.name)
        assert prompt.messages and prompt.text


@pytest.fixture
def everything_http(node_modules: Path) -> Iterator[tuple[str, str]]:
    """server-everything in streamableHttp mode, and a second one in SSE mode."""
    entry = str(node_modules / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js")
    http_port, sse_port = free_port(), free_port()
    http = start_http_server(["node", entry, "streamableHttp"], http_port, {"PORT": str(http_port)})
    try:
        sse = start_http_server(["node", entry, "sse"], sse_port, {"PORT": str(sse_port)})
    except AssertionError:
        stop_process(http)
        raise
    yield f"http://127.0.0.1:{http_port}/mcp", f"http://127.0.0.1:{sse_port}/sse"
    stop_process(http)
    stop_process(sse)


async def test_server_everything_over_streamable_http_and_sse(everything_http: tuple[str, str]) -> None:
    http_url, sse_url = everything_http
    servers = {
        "http": StreamableHttpServerConfig(type="streamable-http", url=http_url),
        "sse": SseServerConfig(type="sse", url=sse_url),
    }
    async with McpManager(servers) as manager:
        for name in ("http", "sse"):
            assert manager.status(name).state is ServerState.READY, manager.status(name).reason
            result = await manager.call_tool(name, "echo", {"message": f"via {name}"})
            assert f"via {name}" in result.text


async def test_server_filesystem_on_a_temporary_folder(node_modules: Path, tmp_path: Path) -> None:
    (tmp_path / "hello.txt").write_text("hello from the file\n")
    config = npm_server(node_modules, "server-filesystem", str(tmp_path))
    async with McpManager({"files": config}) as manager:
        assert manager.status("files").state is ServerState.READY, manager.status("files").reason
        read = await manager.call_tool("files", "read_text_file", {"path": str(tmp_path / "hello.txt")})
        assert "hello from the file" in read.text and not read.is_error
        outside = await manager.call_tool("files", "read_text_file", {"path": "/etc/hostname"})
        assert outside.is_error
