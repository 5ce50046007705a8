"""MCP App views in the desktop tests: a chat whose model called a tool with a UI (real servers, a
scripted model, run on the desktop's core loop), the view loaded and rendered in its sandbox, and a
real host bound to it whose events and approval questions arrive as Qt signals to wait on."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from agent_core.agent.schema import StdioServerConfig
from agent_core.apps_in_chat import chat_app_host
from agent_core.chat.events import ApprovalRequest
from agent_core.chat.session import ChatSession
from agent_core.mcp import McpManager
from agent_core.mcp.apps import AppEvent, AppHost, AppView, load_app_view
from agent_core.store.records import ToolCallRecord
from desktop.bridge import CoreBridge
from tests.support.app_chats import called_in_chat

__all__ = ["AppInChat", "AppsBridge", "HostSignals", "app_in_chat", "bind_host"]

WAIT_S = 90.0  # a server's start, the scripted chat and the view's load together


@dataclass
class AppInChat:
    manager: McpManager
    session: ChatSession
    record: ToolCallRecord
    app: AppView


class AppsBridge(CoreBridge):
    """The desktop's bridge, closing the MCP servers its tests started before its loop stops."""

    def __init__(self) -> None:
        super().__init__()
        self.managers: list[McpManager] = []

    def close(self) -> None:
        async def close_servers() -> None:
            for manager in self.managers:
                await manager.aclose()

        self.shutdown(close_servers())


class HostSignals(QObject):
    """What a view's host tells the front end, as signals (emitted from the core loop's thread)."""

    event = Signal(object)  # AppEvent
    asked = Signal(object)  # ApprovalRequest


def app_in_chat(
    bridge: AppsBridge, tmp_path: Path, server: str, config: StdioServerConfig, tool: str
) -> AppInChat:
    """``server``'s ``tool`` called by the model in a new chat, and its UI read, on the core loop
    (the server is closed with the bridge)."""

    async def run() -> AppInChat:
        manager = McpManager({server: config})
        bridge.managers.append(manager)
        await manager.start()
        session, record = await called_in_chat(tmp_path, manager, server, tool)
        return AppInChat(manager, session, record, await load_app_view(manager, server, tool))

    return bridge.run_sync(run(), timeout=WAIT_S)


def bind_host(bridge: CoreBridge, found: AppInChat, view: Any, signals: HostSignals) -> AppHost:
    """The chat's host for ``view`` (an McpAppView), its result delivered once initialized."""

    def on_event(event: AppEvent) -> None:
        signals.event.emit(event)

    def ask(question: ApprovalRequest) -> None:
        signals.asked.emit(question)

    host = chat_app_host(
        found.session,
        found.manager,
        found.app,
        call_id=found.record.id,
        arguments=found.record.arguments,
        send=view.send,
        on_event=on_event,
        ask=ask,
        context=view.host_context(),
    )
    bridge.call_soon(lambda: host.deliver_result(found.record))
    view.attach(host)
    return host
