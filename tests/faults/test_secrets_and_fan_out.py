"""Faults of MCP servers and sub-agents, second part: a form that asks for a password (masked in the
desktop and the terminal, never logged) and sub-agents that delegate without end (one budget per
user message).

Real servers (tests/fixtures/mcp/hostile_server.py), real `contextdesk` processes where what reaches
the terminal matters, the real chat database, and scripted models at the provider boundary.
"""

from __future__ import annotations

import asyncio
import os
import pty
import select
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import suppress
from pathlib import Path

import pytest

from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ReplyFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.providers.base import ChatRequest, StreamEvent
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.subagents.budget import total_tokens
from agent_core.subagents.tools import WithSubagents
from agent_core.workspace import CHAT_TOOL_HANDLERS
from tests.support.chat_tools import PythonTools
from tests.support.hostile_servers import WAIT, agent_with, hostile
from tests.support.paths import REPO_ROOT
from tests.support.scripted_models import Providers

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
    services = ChatServices(
        providers.resolve,
        None,
        WithSubagents(PythonTools([], {}), lambda: agent),
        tool_handlers=CHAT_TOOL_HANDLERS,
    )
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
