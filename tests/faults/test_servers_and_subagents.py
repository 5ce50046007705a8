"""Faults of MCP servers and sub-agents: a server's helper processes outliving it, junk and
invalid answers on stdout, a form asking for a password, a 50 MB tool result, and sub-agents that
delegate without end.

Real servers (tests/fixtures/mcp/hostile_server.py, real stdio processes speaking the protocol),
real `contextdesk` processes where what reaches the terminal matters, the real chat database, and
scripted models at the provider boundary.
"""

from __future__ import annotations

import asyncio
import json
import os
import pty
import select
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.agent.schema import StdioServerConfig
from agent_core.chat.events import ReplyFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.mcp import McpManager, ServerState
from agent_core.mcp._protocol_guard import MAX_TRACKED_REQUESTS
from agent_core.paths import user_dirs
from agent_core.providers.base import ChatRequest, StreamEvent
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.store.kept_results import MAX_KEPT_RESULT_CHARS
from agent_core.subagents.budget import total_tokens
from agent_core.subagents.tools import WithSubagents
from tests.support.chat_tools import PythonTools
from tests.support.paths import FIXTURES, REPO_ROOT
from tests.support.scripted_models import Providers
from tests.support.server_trust import trust_servers

HOSTILE = FIXTURES / "mcp" / "hostile_server.py"
WAIT = 60.0  # seconds any one wait on a process or a pipe may take before the test fails

needs_pidfd = pytest.mark.skipif(
    not hasattr(os, "pidfd_open"), reason="waiting on another process's exit needs pidfd_open (Linux)"
)


def hostile(*args: str, **settings: object) -> StdioServerConfig:
    return StdioServerConfig(command=sys.executable, args=[str(HOSTILE), *args], **settings)  # type: ignore[arg-type]


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


def agent_with(tmp_path: Path, servers: dict[str, StdioServerConfig], extra: str = "") -> Path:
    root = tmp_path / "agent"
    root.mkdir(exist_ok=True)
    lines = ["name: Faults", "mcpServers:"]
    for name, config in servers.items():
        lines += [
            f"  {name}:",
            f"    command: {json.dumps(config.command)}",
            f"    args: {json.dumps(config.args)}",
        ]
        lines += ["    toolDefaults: {permissionRequired: false}"]
    (root / "agent.yaml").write_text("\n".join(lines) + "\n" + extra)
    return trust_servers(root)  # as the user would, once, before the servers first start


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


# --- 4. a form that asks for a password ------------------------------------------------------

SECRET = "hunter2-s3cret"


def test_which_fields_ask_for_a_secret_is_decided_in_the_core() -> None:
    from agent_core.mcp.elicitation import form_from_schema

    properties = {
        "user": {"type": "string", "title": "User name"},
        "password": {"type": "string"},
        "passphrase": {"type": "string", "title": "Passphrase for the key file"},
        "apiKey": {"type": "string"},
        "github": {"type": "string", "description": "Your GitHub personal access token"},
        "hidden": {"type": "string", "writeOnly": True},
        "formatted": {"type": "string", "format": "password"},
        "code": {"type": "integer", "title": "PIN"},
        "max_tokens": {"type": "integer", "description": "How many tokens to write"},
        "keyboard": {"type": "string", "description": "The key of the row to change"},
        "remember": {"type": "boolean", "title": "Remember the password"},
    }
    form = form_from_schema("vault", "Sign in", {"type": "object", "properties": properties})
    secret = {item.name for item in form.fields if item.secret}
    assert secret == {"password", "passphrase", "apiKey", "github", "hidden", "formatted", "code"}
    assert form.asks_for_secret


class Terminal:
    """``contextdesk ARGS`` on a pseudo-terminal of its own: what a person would see and type."""

    def __init__(self, *args: str) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the terminal is its controlling one
            os.chdir(REPO_ROOT)
            os.environ["PYTHONPATH"] = str(REPO_ROOT)
            os.execv(sys.executable, [sys.executable, "-m", "desktop.launcher", *args])
        self.seen = b""

    def wait_for(self, text: str) -> None:
        deadline = time.monotonic() + WAIT
        while text.encode() not in self.seen:
            readable, _, _ = select.select([self.fd], [], [], max(0.0, deadline - time.monotonic()))
            chunk = b""
            with suppress(OSError):  # EIO: the program ended
                chunk = os.read(self.fd, 65536) if readable else b""
            assert chunk, f"no {text!r} on the terminal; it shows:\n{self.seen.decode(errors='replace')}"
            self.seen += chunk

    def type(self, line: str) -> None:
        os.write(self.fd, line.encode() + b"\r")

    def finish(self) -> tuple[int, str]:
        with suppress(OSError):  # EIO once the child has closed the terminal
            while chunk := os.read(self.fd, 65536):
                self.seen += chunk
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status), self.seen.decode(errors="replace")


@pytest.mark.parametrize("verbose", [False, True], ids=["plain", "verbose"])
def test_a_password_typed_at_the_terminal_is_not_shown_nor_logged(tmp_path: Path, verbose: bool) -> None:
    agent = agent_with(tmp_path, {"vault": hostile("ask-secret")})
    terminal = Terminal(*(["--verbose"] if verbose else []), "mcp", "call", str(agent), "vault", "sign_in")
    terminal.wait_for("> user: ")
    terminal.type("grace")
    terminal.wait_for("> password: ")
    terminal.type(SECRET)
    terminal.wait_for("[s]end")
    terminal.type("s")
    code, screen = terminal.finish()
    assert code == 0, screen
    assert "vault asks for a secret: only enter it if you trust this server." in screen
    assert f"signed in as grace with a password of {len(SECRET)} characters" in screen
    assert "grace" in screen.split("> user: ", 1)[1]  # an ordinary field is echoed as typed
    assert SECRET not in screen


def test_the_desktop_form_hides_a_password_and_says_which_server_asks(qtbot: object) -> None:
    from PySide6.QtWidgets import QLineEdit

    from agent_core.mcp.elicitation import form_from_schema
    from desktop.dialogs.elicitation import ElicitationDialog

    schema = {
        "type": "object",
        "properties": {"user": {"type": "string"}, "password": {"type": "string", "format": "password"}},
        "required": ["user", "password"],
    }
    dialog = ElicitationDialog(form_from_schema("vault", "Sign in", schema))
    qtbot.addWidget(dialog)  # type: ignore[attr-defined]
    assert dialog.secret_warning is not None
    assert dialog.secret_warning.text() == "vault asks for a secret: only enter it if you trust this server."
    password, user = dialog.editor("password"), dialog.editor("user")
    assert isinstance(password.editor, QLineEdit) and isinstance(user.editor, QLineEdit)
    assert password.editor.echoMode() is QLineEdit.EchoMode.Password
    assert user.editor.echoMode() is QLineEdit.EchoMode.Normal and user.reveal is None
    assert password.reveal is not None
    password.reveal.setChecked(True)
    assert password.editor.echoMode() is QLineEdit.EchoMode.Normal
    password.reveal.setChecked(False)
    assert password.editor.echoMode() is QLineEdit.EchoMode.Password
    user.editor.setText("grace")
    password.editor.setText(SECRET)
    with qtbot.waitSignal(dialog.answered, timeout=5000) as answered:  # type: ignore[attr-defined]
        dialog.accept_button.click()
    assert answered.args[0].content == {"user": "grace", "password": SECRET}  # it still reaches the server


def test_the_http_transports_debug_lines_never_quote_a_whole_message(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import logging

    from agent_core.mcp._library_logs import quiet_library_tracebacks

    quiet_library_tracebacks()
    caplog.set_level(logging.DEBUG)
    answer = f'{{"action": "accept", "content": {{"password": "{SECRET}"}}}}'
    logging.getLogger("mcp.client.streamable_http").debug(f"Sending client message: {answer}")  # noqa: G004
    logging.getLogger("mcp.client.sse").debug(f"Sending client message: {answer}")  # noqa: G004
    assert SECRET not in caplog.text
    assert caplog.messages == ["Sending client message (its content is not logged)"] * 2


# --- 6. sub-agents that delegate without end ---------------------------------------------------


class Fanning(ScriptedProvider):
    """A model that, whenever it may delegate, delegates three tasks at once, then answers."""

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        may_delegate = any(tool.name == "subagents__fan" for tool in request.tools)
        if may_delegate and request.messages[-1].role != "tool":
            self.enqueue_tool_calls([("subagents__fan", {"task": f"part {n} of it"}, None) for n in range(3)])
        else:
            self.enqueue_reply("done")
        async for event in super().stream(request):
            yield event


def fanning_chat(tmp_path: Path, chat_settings: str) -> tuple[ChatSession, ChatStore, Providers]:
    root = create_agent(tmp_path / "agent").root
    for path in [*(root / "rules").glob("*.md"), *(root / "references").glob("*.md")]:
        path.unlink()
    config = (root / "agent.yaml").read_text()
    (root / "agent.yaml").write_text(config.replace("chat:\n", f"chat:\n{chat_settings}", 1))
    (root / "subagents").mkdir()
    (root / "subagents" / "fan.md").write_text(
        "---\nname: fan\ndescription: Splits the work\nmodel: scripted:fan\ninclude: always\n"
        "limits: {maxDepth: 5, maxParallel: 3}\n---\nSplit the task and delegate the parts.\n"
    )
    agent = load_agent(root)
    assert not agent.errors, agent.problems
    agent.config.chat.model = "scripted:parent"
    providers = Providers()
    providers.by_model["parent"] = Fanning()
    providers.by_model["fan"] = Fanning()
    store = ChatStore(tmp_path / "chats.sqlite3")
    services = ChatServices(providers.resolve, None, WithSubagents(PythonTools([], {}), lambda: agent))
    return ChatSession.create(agent, store, services), store, providers


def answer(session: ChatSession, text: str) -> ReplyFinished:
    async def run() -> ReplyFinished:
        events = [event async for event in session.send(text)]
        [finished] = [e for e in events if isinstance(e, ReplyFinished)]
        return finished

    return asyncio.run(asyncio.wait_for(run(), WAIT))


def chats_in(store: ChatStore) -> int:
    return len(store.sessions()) + sum(1 for _ in descendants(store, [s.id for s in store.sessions()]))


def descendants(store: ChatStore, ids: list[str]) -> Iterator[str]:
    for session_id in ids:
        children = [child.id for child in store.children(session_id)]
        yield from children
        yield from descendants(store, children)


@pytest.mark.parametrize(
    ("settings", "runs", "setting"),
    [
        ("", 20, "maxSubagentRunsPerMessage"),
        ("  maxSubagentRunsPerMessage: 5\n", 5, "maxSubagentRunsPerMessage"),
        (
            "  maxSubagentRunsPerMessage: 1000\n  maxSubagentTokensPerMessage: 1000\n",
            None,
            "maxSubagentTokensPerMessage",
        ),
    ],
    ids=["default", "five-runs", "thousand-tokens"],
)
def test_a_fan_out_of_sub_agents_stops_at_the_messages_limit_and_says_how_to_raise_it(
    tmp_path: Path, settings: str, runs: int | None, setting: str
) -> None:
    session, store, providers = fanning_chat(tmp_path, settings)
    try:
        finished = answer(session, "do the big job")
        children = chats_in(store) - 1
        if runs is not None:
            assert children == runs  # 3 + 9 + 27 + 81 + 243 = 363 without the limit
        else:
            assert 0 < children < 100
            delegations = finished.message.request_context.delegations  # type: ignore[union-attr]
            assert sum(total_tokens(d.usage) for d in delegations) < 5000  # what runs on finishes its turn
        # Each child asks its model at most twice (delegate, then answer); the parent twice.
        assert len(providers.log) <= 2 + 2 * children
        context = finished.message.request_context
        assert context is not None and len(context.delegations) == 3
        for delegation in context.delegations:
            assert f"raise chat.{setting} in agent.yaml" in delegation.note, delegation.note

        answer(session, "and again")  # the next message has a budget of its own
        assert chats_in(store) - 1 > children
    finally:
        store.close()
