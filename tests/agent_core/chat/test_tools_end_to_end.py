"""An agent whose tools come from real MCP servers, called through the chat loop with approvals."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import (
    ApprovalDecision,
    ApprovalRequest,
    ChatEvent,
    ReplyFinished,
    ToolCallFinished,
)
from agent_core.providers.base import Provider
from agent_core.providers.pool import ProviderPool
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.workspace import Workspace
from tests.support.paths import FIXTURES
from tests.support.server_trust import trust_servers

DEMO_SERVER = FIXTURES / "mcp" / "demo_server.py"


class ScriptedPool(ProviderPool):
    def __init__(self, workspace_agent: object, provider: Provider) -> None:
        self.provider = provider

    def resolve(self, model_ref: str) -> tuple[Provider, str]:
        return self.provider, "x"

    async def aclose(self) -> None:
        return None


def agent_with_servers(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    create_agent(root)
    config = (root / "agent.yaml").read_text()
    config = config.split("mcpServers:")[0] + (
        "mcpServers:\n"
        "  time:\n"
        f"    command: {sys.executable}\n"
        "    args: [-m, mcp_server_time, --local-timezone=UTC]\n"
        "    tools:\n"
        "      convert_time: {include: manual}\n"
        "  demo:\n"
        f"    command: {sys.executable}\n"
        f"    args: [{DEMO_SERVER}]\n"
        "    toolDefaults: {include: always, permissionRequired: false}\n"
        "    tools:\n"
        "      add: {permissionRequired: true}\n"
        "  broken:\n"
        "    command: /nonexistent/server\n"
    )
    (root / "agent.yaml").write_text(config)
    return trust_servers(root)


async def chat(workspace: Workspace, text: str, decisions: Sequence[ApprovalDecision]) -> list[ChatEvent]:
    session = workspace.new_chat()
    answers = iter(decisions)
    events: list[ChatEvent] = []
    async for event in session.send(text):
        events.append(event)
        if isinstance(event, ApprovalRequest):
            event.decide(next(answers))
    return events


def test_real_servers_are_called_through_the_chat_loop_with_approvals(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue_tool_calls(
        [
            ("time__get_current_time", {"timezone": "Asia/Tokyo"}, "t1"),
            ("demo__add", {"a": 2, "b": 3}, "a1"),
            ("demo__echo", {"text": "hi"}, "e1"),
        ]
    )
    provider.enqueue_reply("Done.")
    agent = load_agent(agent_with_servers(tmp_path))

    async def scenario() -> list[ChatEvent]:
        workspace = Workspace(
            agent, store=ChatStore(tmp_path / "db.sqlite3"), providers=ScriptedPool(agent, provider)
        )
        try:
            statuses = {s.name: s for s in await workspace.start_tools()}
            assert statuses["time"].state == "ready" and statuses["demo"].state == "ready"
            assert statuses["broken"].state == "failed" and statuses["broken"].reason
            return await chat(
                workspace, "time in Tokyo, and 2+3?", [ApprovalDecision.ALLOW_ONCE, ApprovalDecision.DENY]
            )
        finally:
            await workspace.aclose()

    events = asyncio.run(scenario())
    offered = {spec.name for spec in provider.requests[0].tools}
    assert {"time__get_current_time", "demo__add", "demo__echo"} <= offered
    assert "time__convert_time" not in offered  # manual, not in the chat: never sent
    approvals = [(e.server, e.tool) for e in events if isinstance(e, ApprovalRequest)]
    assert approvals == [("time", "get_current_time"), ("demo", "add")]  # echo needs no permission
    records = {e.record.tool: e.record for e in events if isinstance(e, ToolCallFinished)}
    assert "Asia/Tokyo" in records["get_current_time"].result and not records["get_current_time"].is_error
    assert records["add"].approval == "denied" and records["add"].is_error
    assert records["echo"].result == "hi" and records["echo"].approval == "auto"
    assert records["echo"].elapsed_seconds is not None
    results = [m for m in provider.requests[1].messages if m.role == "tool"]
    assert [m.tool_call_id for m in results] == ["t1", "a1", "e1"]
    final = events[-1]
    assert isinstance(final, ReplyFinished) and final.message.content == "Done."
    context = final.message.request_context
    assert context is not None
    assert {(i.ref.server, i.ref.name) for i in context.of_type("tool")} >= {
        ("time", "get_current_time"),
        ("demo", "add"),
    }


def test_a_tool_whose_server_died_returns_an_error_and_the_chat_goes_on(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue_tool_call("demo__crash", {}, id="c1")
    provider.enqueue_tool_call("demo__echo", {"text": "still there?"}, id="c2")
    provider.enqueue_reply("The server stopped; I could not finish.")
    agent = load_agent(agent_with_servers(tmp_path))

    async def scenario() -> list[ChatEvent]:
        workspace = Workspace(
            agent, store=ChatStore(tmp_path / "db.sqlite3"), providers=ScriptedPool(agent, provider)
        )
        try:
            await workspace.start_tools()
            return await chat(workspace, "crash it", [])
        finally:
            await workspace.aclose()

    events = asyncio.run(scenario())
    records = [e.record for e in events if isinstance(e, ToolCallFinished)]
    assert [r.is_error for r in records] == [True, True]
    assert isinstance(events[-1], ReplyFinished) and events[-1].message.status == "complete"


def test_an_mcp_resource_attached_to_a_chat_is_used_as_a_reference(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("It says hello.")
    agent = load_agent(agent_with_servers(tmp_path))

    async def scenario() -> None:
        workspace = Workspace(
            agent, store=ChatStore(tmp_path / "db.sqlite3"), providers=ScriptedPool(agent, provider)
        )
        try:
            await workspace.start_tools()
            assert workspace.mcp is not None
            [greeting] = [r for r in await workspace.mcp.list_resources("demo") if r.uri == "demo://greeting"]
            content = await workspace.mcp.read_resource("demo", greeting.uri)
            session = workspace.new_chat()
            ref = session.attach_resource("demo", greeting.uri, content.text, title=greeting.name)
            assert ref in [item.ref for item in session.items]
            events = [event async for event in session.send("what does the greeting say?")]
            final = events[-1]
            assert isinstance(final, ReplyFinished) and final.message.request_context is not None
            assert ("demo", "manual") in [
                (i.ref.server, i.include_mode) for i in final.message.request_context.items
            ]
        finally:
            await workspace.aclose()

    asyncio.run(scenario())
    system = provider.requests[0].messages[0].content
    assert "demo://greeting" in system and "Hello from the demo server" in system
