"""Faults at the edges of the command line and of MCP servers: a reader that goes away, servers
that die or refuse, hostile paths given to the workspace tools, floods of stderr.

The commands run as real processes (the way a user meets them), so what reaches the terminal is
exactly what is asserted.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.importers import import_source
from agent_core.agent.schema import (
    InternalServerConfig,
    SseServerConfig,
    StdioServerConfig,
    StreamableHttpServerConfig,
)
from agent_core.agent.secrets import MissingSecretError
from agent_core.mcp import McpManager, ServerState
from agent_core.mcp._connection_state import MAX_TOOLS_PER_SERVER
from agent_core.mcp._logs import MAX_LINE_BYTES, MAX_LINE_CHARS, LogBuffer, StderrCapture
from agent_core.mcp._transports import stdio_parameters
from tests.support.mcp_servers import DEMO_SERVER, free_port
from tests.support.paths import FIXTURES, REPO_ROOT
from tests.support.server_trust import trust_servers

EXIT_DURING_INITIALIZE = FIXTURES / "mcp" / "exit_during_initialize.py"
STDERR_FLOOD = FIXTURES / "mcp" / "stderr_flood.py"
FLOOD_MEGABYTES = 50
DEMO_TOOLS = 6  # the demo server's own tools, before --extra-tools


def contextdesk(*args: str, stdout: int | None = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    """Run ``contextdesk ARGS`` as its own process with this checkout first on the path."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "desktop.launcher", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO_ROOT,
        timeout=120,
        check=False,
    )


def contextdesk_into_closed_pipe(*args: str) -> subprocess.CompletedProcess[str]:
    """``contextdesk ARGS | head -0``, deterministically: the pipe's reader is gone before it starts."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return contextdesk(*args, stdout=write_end)
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("sessions", "list", "--json"), 141),  # 128 + SIGPIPE, as a shell reports it
        (("--help",), 0),  # argparse drops what it cannot print itself
    ],
)
def test_a_reader_that_goes_away_ends_the_command_quietly(args: tuple[str, ...], code: int) -> None:
    finished = contextdesk_into_closed_pipe(*args)
    assert (finished.returncode, finished.stderr) == (code, "")


def test_a_server_that_exits_during_initialize_or_refuses_gives_one_clear_message(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    port = free_port()  # nothing listens there
    (agent / "agent.yaml").write_text(
        "name: Faults\n"
        "mcpServers:\n"
        f"  dying:\n    command: {json.dumps(sys.executable)}\n"
        f"    args: [{json.dumps(str(EXIT_DURING_INITIALIZE))}]\n"
        f"  refused:\n    type: streamable-http\n    url: http://127.0.0.1:{port}/mcp\n"
        f"  refused-sse:\n    type: sse\n    url: http://127.0.0.1:{port}/sse\n"
    )
    trust_servers(agent)
    finished = contextdesk("mcp", "ping", str(agent))
    assert finished.returncode == 1
    assert "Traceback" not in finished.stderr and "Traceback" not in finished.stdout
    assert finished.stderr == ""
    lines = finished.stdout.splitlines()
    assert lines[0].startswith(
        "dying: failed: MCP server 'dying' exited unexpectedly. Fix: check its `command`"
    )
    assert lines[1:3] == [
        "Last lines it wrote to stderr:",
        "  | exit_during_initialize: no licence key found, giving up",
    ]
    assert lines[3] == (
        f"refused: failed: MCP server 'refused': cannot connect to http://127.0.0.1:{port}/mcp "
        "(connection refused). Fix: start the server, or check the host and port in `url`."
    )
    assert lines[4].startswith("refused-sse: failed: MCP server 'refused-sse': cannot connect to")
    assert len(lines) == 5

    verbose = contextdesk("--verbose", "mcp", "ping", str(agent), "dying")
    assert "Traceback" in verbose.stderr  # the details are there for whoever asks for them


@pytest.mark.anyio
async def test_hostile_paths_to_the_workspace_tools_get_errors_that_say_what_to_do(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    (root / "notes.md").write_text("notes\n")
    config = InternalServerConfig(type="internal", tool="workspace", options={"root": str(root)})
    async with McpManager({"ws": config}) as manager:

        async def error_of(tool: str, **arguments: object) -> str:
            result = await manager.call_tool("ws", tool, arguments)
            assert result.is_error, result.text
            reason = result.text.removeprefix(f"Error executing tool {tool}: ")  # the SDK's prefix
            assert reason.strip() and reason != result.text.strip()
            return reason

        nul = await error_of("read_file", path="notes.md\0.txt")
        assert nul.startswith("'notes.md\\x00.txt' contains a NUL character") and "list_files" in nul
        assert "control characters" in await error_of("read_file", path="notes\n.md")
        long_name = await error_of("read_file", path="a" * 300)
        assert "longer than 255 bytes" in long_name and "(300 characters)" in long_name
        assert "longer than 255 bytes" in await error_of("search_files", query="x", path="é" * 200)
        long_path = await error_of("list_files", path="/".join(["abcdefgh"] * 200))
        assert "at most 1024" in long_path
        # Within the limits but longer than the system's own: the system's reason, not a bare failure.
        deep = await error_of("read_file", path="/".join(["d" * 200] * 5))
        assert deep.startswith("'") and ("cannot be read" in deep or "is not a file" in deep)
        result = await manager.call_tool("ws", "read_file", {"path": "notes.md"})
        assert (result.text, result.is_error) == ("notes\n", False)


def test_a_stderr_flood_without_newlines_keeps_only_a_marked_tail() -> None:
    buffer = LogBuffer()
    capture = StderrCapture(buffer, "flood")
    process = subprocess.Popen(  # the server serves stdin, which ends at once: it floods and exits
        [sys.executable, str(STDERR_FLOOD), "--megabytes", str(FLOOD_MEGABYTES)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=capture.writer,
    )
    capture.close_writer()
    assert process.wait(timeout=60) == 0
    assert asyncio.run(capture.wait_drained(timeout=60))

    assert capture.held_bytes == 0 and buffer.held_chars() <= 200 * MAX_LINE_CHARS
    flood = next(line for line in buffer.tail(200) if "FLOOD-END" in line)
    assert len(flood) <= MAX_LINE_CHARS
    cut = int(flood.removeprefix("[").split(" ", 1)[0])
    assert flood.startswith(f"[{cut} bytes cut from this line] ...xxx")
    assert FLOOD_MEGABYTES * 2**20 - MAX_LINE_BYTES <= cut < FLOOD_MEGABYTES * 2**20


@pytest.mark.anyio
async def test_a_server_that_floods_stderr_still_starts_and_serves() -> None:
    config = StdioServerConfig(
        command=sys.executable, args=[str(STDERR_FLOOD), "--megabytes", str(FLOOD_MEGABYTES)]
    )
    async with McpManager({"flood": config}) as manager:
        assert manager.status("flood").state is ServerState.READY
        assert [tool.name for tool in manager.tools()] == ["echo"]
        result = await manager.call_tool("flood", "echo", {"text": "still here"})
        assert (result.text, result.is_error) == ("still here", False)


SECRETS_IN_ARGS = FIXTURES / "importers" / "mcp-secrets-in-args.json"
LITERALS = (
    "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "sk-proj-Abc123Def456Ghi789Jkl0",
    "xoxb-2048-4096-AbCdEfGhIjKl",
    "hunter2",
    "correct horse battery staple",
    "abc123secret",
    "s3cr3t-pw",
    "t0k3n",
    "zz9",
)


def test_import_moves_secrets_in_args_and_urls_to_environment_variables(tmp_path: Path) -> None:
    target = tmp_path / "imported"
    report = import_source(SECRETS_IN_ARGS, target)
    written = (target / "agent.yaml").read_text(encoding="utf-8")
    for literal in LITERALS:
        assert literal not in written, literal
    agent = load_agent(target)
    assert agent.errors == []
    servers = agent.config.mcp_servers

    def args(name: str) -> list[str]:
        config = servers[name]
        assert isinstance(config, StdioServerConfig)
        return config.args

    def url(name: str) -> str:
        config = servers[name]
        assert isinstance(config, SseServerConfig | StreamableHttpServerConfig)
        return config.url

    assert args("github")[-2:] == ["--token", "env://GITHUB_TOKEN"]
    assert args("openai-tools") == ["openai-mcp", "--api-key=${OPENAI_TOOLS_API_KEY}", "--model", "gpt-4o"]
    assert args("slack") == ["slack-mcp.js", "env://SLACK_TOKEN", "--channel", "general"]
    assert args("postgres")[-1] == "postgresql://admin:${POSTGRES_PASSWORD}@db.internal:5432/app"
    assert args("db-cli") == [
        "--password",
        "env://DB_CLI_PASSWORD",
        "--user",
        "admin",
        "--secret=${DB_SECRET}",
    ]
    assert url("search") == "https://search.example.com/mcp?api_key=${SEARCH_API_KEY}&region=eu"
    assert url("intranet") == (
        "https://bob:${INTRANET_PASSWORD}@intranet.example.com/sse"
        "?token=${INTRANET_TOKEN}&access_token=${INTRANET_ACCESS_TOKEN}"
    )
    assert args("plain") == ["server.py", "--port", "8080", "--key-file", "keys/id.pem"]

    told = "\n".join(report.lines())
    for variable in (
        "GITHUB_TOKEN",
        "OPENAI_TOOLS_API_KEY",
        "SLACK_TOKEN",
        "POSTGRES_PASSWORD",
        "DB_CLI_PASSWORD",
        "SEARCH_API_KEY",
        "INTRANET_PASSWORD",
        "INTRANET_TOKEN",
        "INTRANET_ACCESS_TOKEN",
    ):
        assert f"Set {variable} in your environment" in told, variable
    assert "DB_SECRET in your" not in told  # already a reference: nothing moved

    # The references are resolved when the server starts, from the environment.
    environ = {"GITHUB_TOKEN": "ghp_from_env", "POSTGRES_PASSWORD": "pw"}
    github = servers["github"]
    assert isinstance(github, StdioServerConfig)
    assert stdio_parameters("github", github, environ).args[-1] == "ghp_from_env"
    postgres = servers["postgres"]
    assert isinstance(postgres, StdioServerConfig)
    assert (
        stdio_parameters("postgres", postgres, environ).args[-1]
        == "postgresql://admin:pw@db.internal:5432/app"
    )
    with pytest.raises(MissingSecretError, match="SLACK_TOKEN"):
        stdio_parameters("slack", servers["slack"], environ)  # type: ignore[arg-type]


def test_copy_secrets_keeps_secrets_in_args_and_urls(tmp_path: Path) -> None:
    target = tmp_path / "imported"
    import_source(SECRETS_IN_ARGS, target, copy_secrets=True)
    written = (target / "agent.yaml").read_text(encoding="utf-8")
    for literal in LITERALS:
        assert literal in written, literal


def test_a_server_with_too_many_tools_contributes_the_first_thousand_and_says_so(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "agent.yaml").write_text(
        "name: Many\n"
        "mcpServers:\n"
        f"  many:\n    command: {json.dumps(sys.executable)}\n"
        f"    args: [{json.dumps(str(DEMO_SERVER))}, --extra-tools, '1100']\n"
        "    startTimeoutSeconds: 120\n"
    )
    trust_servers(agent)
    finished = contextdesk("agent", "show", str(agent), "--json")
    assert finished.returncode == 0, finished.stderr
    (server,) = json.loads(finished.stdout)["mcpServers"]
    assert len(server["availableTools"]) == MAX_TOOLS_PER_SERVER
    assert server["status"]["state"] == "ready"
    assert server["status"]["reason"].startswith(
        f"MCP server 'many' offers {1100 + DEMO_TOOLS} tools; only the first 1000 are used and "
        f"{1100 + DEMO_TOOLS - 1000} are left out. Fix: "
    )
    shown = contextdesk("agent", "show", str(agent)).stdout
    assert "    ready (demo 1.2.3), 1000 tools\n    warning: MCP server 'many' offers" in shown
