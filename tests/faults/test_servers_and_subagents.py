"""Faults of MCP servers: a server's helper processes outliving it (also under a sub-agent's call),
junk and invalid answers on stdout, and a 50 MB tool result. (Forms asking for a password and
sub-agents that delegate without end: test_secrets_and_fan_out.py.)

Real servers (tests/fixtures/mcp/hostile_server.py, real stdio processes speaking the protocol),
real `contextdesk` processes where what reaches the terminal matters, the real chat database, and
scripted models at the provider boundary.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from agent_core.mcp import McpManager, ServerState
from agent_core.mcp._protocol_guard import MAX_TRACKED_REQUESTS
from agent_core.paths import user_dirs
from agent_core.store.kept_results import MAX_KEPT_RESULT_CHARS
from tests.support.hostile_servers import WAIT, agent_with, hostile
from tests.support.paths import REPO_ROOT

needs_pidfd = pytest.mark.skipif(
    not hasattr(os, "pidfd_open"), reason="waiting on another process's exit needs pidfd_open (Linux)"
)


def contextdesk(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``contextdesk ARGS`` in its own process, this checkout first on the path."""
    return subprocess.run(
        [sys.executable, "-m", "desktop.launcher", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        cwd=REPO_ROOT,
        timeout=120,
        check=False,
    )


def exits_within(pidfd: int, seconds: float) -> bool:
    """Whether the process behind ``pidfd`` ends within ``seconds`` (an event, not a poll)."""
    readable, _, _ = select.select([pidfd], [], [], seconds)
    return bool(readable)


@contextmanager
def watched(pid_file: Path) -> Iterator[int]:
    """A pidfd for the process whose pid ``pid_file`` holds, which must still run; killed at the
    end if it still does (a failed test leaves nothing running)."""
    pid = int(pid_file.read_text())
    fd = os.pidfd_open(pid)
    try:
        assert not exits_within(fd, 0), f"process {pid} had already ended"
        yield fd
    finally:
        if not exits_within(fd, 0):
            os.kill(pid, signal.SIGKILL)
        os.close(fd)


# --- 1. what a server started ends with it ---------------------------------------------------------


@needs_pidfd
@pytest.mark.anyio
@pytest.mark.parametrize("stubborn", [False, True], ids=["plain", "ignores-SIGTERM"])
async def test_closing_a_server_ends_the_processes_it_started(tmp_path: Path, stubborn: bool) -> None:
    pid_file = tmp_path / "helper.pid"
    config = hostile("spawn", str(pid_file), *(["--stubborn"] if stubborn else []))
    async with McpManager({"spawner": config}) as manager:
        assert manager.status("spawner").state is ServerState.READY
        with watched(pid_file) as helper:
            result = await manager.call_tool("spawner", "echo", {"text": "still here"})
            assert (result.text, result.is_error) == ("still here", False)
            await manager.aclose()
            assert exits_within(helper, 10), "the server's helper process outlived the server"


def spawning_chat_agent(tmp_path: Path, fifo: Path, pid_file: Path) -> Path:
    """An agent whose model delegates to a sub-agent whose model calls spawner.hang(fifo)."""
    script = tmp_path / "script.json"
    steps = [
        {"tool_calls": [{"name": "subagents__helper", "arguments": {"task": "wait for it"}}]},
        {"tool_calls": [{"name": "spawner__hang", "arguments": {"fifo": str(fifo)}}]},
        {"reply": "never reached"},
        {"reply": "never reached"},
    ]
    script.write_text(json.dumps({"steps": steps}))
    extra = (
        "chat: {model: 'scripted:parent'}\n"
        f"providers:\n  scripted:\n    options: {{script: {json.dumps(str(script))}}}\n"
    )
    root = agent_with(tmp_path, {"spawner": hostile("spawn", str(pid_file))}, extra)
    (root / "subagents").mkdir()
    (root / "subagents" / "helper.md").write_text(
        "---\nname: helper\ndescription: Waits\nmodel: scripted:helper\ninclude: always\n---\nYou wait.\n"
    )
    return root


@needs_pidfd
def test_ctrl_c_during_a_sub_agent_s_tool_call_ends_the_server_s_helpers(tmp_path: Path) -> None:
    fifo, pid_file = tmp_path / "calling.fifo", tmp_path / "helper.pid"
    os.mkfifo(fifo)
    agent = spawning_chat_agent(tmp_path, fifo, pid_file)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # select() waits for the tool's line
    chat = subprocess.Popen(
        [sys.executable, "-m", "desktop.launcher", "chat", "--agent", str(agent), "--yes", "go"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        cwd=REPO_ROOT,
    )
    try:
        readable, _, _ = select.select([reader], [], [], WAIT)
        assert readable and os.read(reader, 100) == b"calling\n", chat.stderr.read() if chat.stderr else ""
        with watched(pid_file) as helper:
            chat.send_signal(signal.SIGINT)
            chat.wait(timeout=WAIT)
            assert exits_within(helper, 10), "the server's helper process outlived Ctrl-C"
    finally:
        os.close(reader)
        if chat.poll() is None:
            chat.kill()
            chat.wait()
        for stream in (chat.stdout, chat.stderr):
            if stream is not None:
                stream.close()


# --- 2. junk on stdout -------------------------------------------------------------------------


def test_plain_text_on_a_servers_stdout_is_one_log_line_not_a_traceback(tmp_path: Path) -> None:
    agent = agent_with(tmp_path, {"junk": hostile("junk")})
    finished = contextdesk("mcp", "call", str(agent), "junk", "noisy", "--args", '{"text": "still here"}')
    assert (finished.returncode, finished.stdout.strip()) == (0, "still here"), finished.stderr
    assert "Traceback" not in finished.stderr and "validation error" not in finished.stderr
    assert "pydantic" not in finished.stderr and "json_invalid" not in finished.stderr
    assert finished.stderr == ""

    verbose = contextdesk("--verbose", "mcp", "call", str(agent), "junk", "noisy", "--args", '{"text": "x"}')
    assert verbose.returncode == 0  # the details are there for whoever asks for them
    assert "not a JSON-RPC message: <<< not json either >>>" in verbose.stderr


@pytest.mark.anyio
async def test_plain_text_on_stdout_is_noted_in_the_servers_log_and_the_server_works() -> None:
    async with McpManager({"junk": hostile("junk")}) as manager:
        result = await manager.call_tool("junk", "noisy", {"text": "still here"})
        assert (result.text, result.is_error) == ("still here", False)
        log = manager.status("junk").log_tail
    assert "stdout (not JSON-RPC): <<< not json either >>>" in log
    assert "stdout (not JSON-RPC): Starting the junk server... (this line is not JSON-RPC)" in log


# --- 3. valid JSON that is not a valid answer ---------------------------------------------------

INVALID = ["not-jsonrpc", "wrong-id", "no-result", "bad-result"]
EXPECTED = {
    "not-jsonrpc": 'not a JSON-RPC message (no "jsonrpc": "2.0"): {"status": "ok", "answer": 42}',
    "wrong-id": "an answer to request id 987654, which it was never sent",
    "no-result": 'an answer with neither "result" nor "error"',
    "bad-result": "capabilities: Field required",  # in an answer to initialize
}


@pytest.mark.anyio
@pytest.mark.parametrize("how", INVALID)
async def test_an_invalid_answer_to_initialize_fails_at_once_saying_what_was_wrong(how: str) -> None:
    started = time.monotonic()
    async with McpManager(
        {"odd": hostile("invalid", "initialize", how, start_timeout_seconds=20)}
    ) as manager:
        status = manager.status("odd")
    assert time.monotonic() - started < 5, "it waited for the start timeout"
    assert status.state is ServerState.FAILED
    assert status.reason is not None and status.reason.startswith("MCP server 'odd' sent an invalid answer")
    assert EXPECTED[how] in status.reason and "Fix: " in status.reason


@pytest.mark.anyio
@pytest.mark.parametrize("how", INVALID)
async def test_an_invalid_answer_to_a_tool_call_fails_the_call_at_once(how: str) -> None:
    config = hostile("invalid", "call", how, call_timeout_seconds=20)
    async with McpManager({"odd": config}) as manager:
        assert manager.status("odd").state is ServerState.READY
        result = await manager.call_tool("odd", "go", {})
        assert result.elapsed_seconds < 5, "it waited for the call timeout"
        assert result.is_error and "MCP server 'odd' sent an invalid answer" in result.text
        expected = "content: Input should be a valid list" if how == "bad-result" else EXPECTED[how]
        assert expected in result.text and "Fix: " in result.text


def test_contextdesk_names_the_server_and_the_invalid_answer_in_one_line(tmp_path: Path) -> None:
    agent = agent_with(tmp_path, {"odd": hostile("invalid", "initialize", "wrong-id")})
    started = time.monotonic()
    finished = contextdesk("mcp", "ping", str(agent))
    assert time.monotonic() - started < 30
    assert finished.returncode == 1 and finished.stderr == ""
    assert "Traceback" not in finished.stdout
    [line] = finished.stdout.splitlines()
    assert line.startswith(
        "odd: failed: MCP server 'odd' sent an invalid answer, so the connection was closed: "
    )
    assert EXPECTED["wrong-id"] in line


def test_the_ids_remembered_for_unanswered_requests_are_bounded() -> None:
    from mcp_types import JSONRPCRequest

    from agent_core.mcp._protocol_guard import SentRequests

    sent = SentRequests("s")
    for number in range(MAX_TRACKED_REQUESTS + 50):
        sent.sent(JSONRPCRequest(jsonrpc="2.0", id=number, method="ping"))
    assert len(sent._waiting) == MAX_TRACKED_REQUESTS


# --- 5. a 50 MB tool result ------------------------------------------------------------------


def test_a_50_mb_tool_result_is_kept_bounded_in_the_chat_database(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    steps = [{"tool_calls": [{"name": "big__dump", "arguments": {}}]}, {"reply": "That was long."}]
    script.write_text(json.dumps({"steps": steps}))
    extra = (
        "chat: {model: 'scripted:demo'}\n"
        f"providers:\n  scripted:\n    options: {{script: {json.dumps(str(script))}}}\n"
    )
    agent = agent_with(tmp_path, {"big": hostile("big", "50")}, extra)
    finished = contextdesk("chat", "--agent", str(agent), "--yes", "show me everything")
    assert finished.returncode == 0, finished.stderr
    assert "That was long." in finished.stdout

    database = user_dirs().database
    db = sqlite3.connect(database)
    [(calls,)] = db.execute("SELECT tool_calls FROM messages WHERE tool_calls != '[]'").fetchall()
    db.close()
    [record] = json.loads(calls)
    kept, _, marker = record["result"].rpartition("\n[")
    assert len(record["result"]) <= MAX_KEPT_RESULT_CHARS and kept.startswith("0123456789abcdef")
    cut = int(marker.removesuffix(" bytes cut; the full result was not kept]").replace(",", ""))
    assert len(kept) + cut > 50 * 2**20  # the text, and a part of its structured copy, kept or counted
    size = sum(path.stat().st_size for path in database.parent.glob(database.name + "*"))
    assert size < 5 * 2**20, f"the database holds {size:,} bytes"
