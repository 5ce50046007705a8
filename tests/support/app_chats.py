"""MCP Apps tests: a chat whose model called a tool with a UI (real servers, a scripted model),
and a view of that call driven as a front end would, with what the host sent and told it kept."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.apps_in_chat import chat_app_host
from agent_core.chat.events import ApprovalDecision, ApprovalRequest, ToolCallFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.mcp import McpManager
from agent_core.mcp.apps import AppEvent, AppHost, AppLimits, HostContext, load_app_view
from agent_core.providers.retry import stream_with_retries
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.store.records import ToolCallRecord

__all__ = ["INITIALIZE", "ViewDriver", "called_in_chat", "initialized_view", "request"]

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "ui/initialize",
    "params": {
        "appInfo": {"name": "test view", "version": "1.0.0"},
        "appCapabilities": {"availableDisplayModes": ["inline"]},
        "protocolVersion": "2026-01-26",
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "ui/notifications/initialized"}


def request(request_id: int, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": dict(params or {})}


async def _no_sleep(seconds: float) -> None:
    return None


async def called_in_chat(
    tmp_path: Path, manager: McpManager, server: str, tool: str, arguments: Mapping[str, Any] | None = None
) -> tuple[ChatSession, ToolCallRecord]:
    """A new chat in which the model called ``server.tool`` (the user allowed it) and then
    answered; the chat and the call's record."""
    root = tmp_path / "agent"
    if not root.exists():
        create_agent(root)
    provider = ScriptedProvider()
    provider.enqueue_tool_calls([(f"{server}__{tool}", dict(arguments or {}), "call-1")])
    provider.enqueue_reply("Here it is.")
    session = ChatSession.create(
        load_agent(root),
        ChatStore(tmp_path / "chats.sqlite3"),
        ChatServices(
            resolve_provider=lambda model: (provider, "x"),
            tools=manager,
            streamer=functools.partial(stream_with_retries, sleep=_no_sleep),
        ),
    )
    record = None
    async for event in session.send(f"use {tool}"):
        if isinstance(event, ApprovalRequest):
            event.decide(ApprovalDecision.ALLOW_ONCE)
        if isinstance(event, ToolCallFinished):
            record = event.record
    assert record is not None
    return session, record


@dataclass
class ViewDriver:
    """A front end's side of one view: what the host sent the view, the events it raised, the
    approval questions it asked (each answered with ``answer``; None leaves them open, ``asking``
    set once one is)."""

    answer: ApprovalDecision | None = ApprovalDecision.ALLOW_ONCE
    sent: list[dict[str, Any]] = field(default_factory=list)
    events: list[AppEvent] = field(default_factory=list)
    asked: list[ApprovalRequest] = field(default_factory=list)
    asking: asyncio.Event = field(default_factory=asyncio.Event)
    arrived: asyncio.Event = field(default_factory=asyncio.Event)  # set by each message sent

    def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)
        self.arrived.set()

    def ask(self, question: ApprovalRequest) -> None:
        self.asked.append(question)
        self.asking.set()
        if self.answer is not None:
            question.decide(self.answer)

    def host(
        self,
        session: ChatSession,
        manager: McpManager,
        view: Any,
        record: ToolCallRecord,
        *,
        limits: AppLimits | None = None,
        context: HostContext | None = None,
    ) -> AppHost:
        return chat_app_host(
            session,
            manager,
            view,
            call_id=record.id,
            arguments=record.arguments,
            send=self.send,
            on_event=self.events.append,
            ask=self.ask,
            limits=limits,
            context=context,
        )


async def initialized_view(
    session: ChatSession,
    manager: McpManager,
    record: ToolCallRecord,
    driver: ViewDriver,
    *,
    limits: AppLimits | None = None,
) -> AppHost:
    """The view of ``record`` loaded, its host made, and the view initialized (the handshake and
    the call's input and result delivered, then forgotten by ``driver``)."""
    view = await load_app_view(manager, record.server, record.tool)
    host = driver.host(session, manager, view, record, limits=limits)
    host.deliver_result(record)
    assert "result" in (await host.handle(INITIALIZE) or {})
    assert await host.handle(INITIALIZED) is None
    driver.sent.clear()
    driver.arrived.clear()
    return host
