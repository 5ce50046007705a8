"""A view's requests, answered by its chat: ``tools/call`` runs on the chat's tool runtime (the
model's own call path) after the same approval question as the model's call of that tool would
get (the chat's policy, "allow for this chat", tools asked about every time); ``resources/read``
reads from the view's own server; posts go into the reply's RequestContext."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agent_core.chat.approvals import asks_every_call, asks_first, tool_approval
from agent_core.chat.events import APP_ORIGIN, ApprovalDecision, ApprovalRequest
from agent_core.chat.session import ChatSession
from agent_core.context.items import AppExchange, ItemRef
from agent_core.mcp.apps import (
    AppCallDenied,
    AppEvent,
    AppHost,
    AppLimits,
    AppServer,
    AppView,
    HostContext,
    record_app_exchange,
)
from agent_core.mcp.types import ResourceContent, ToolInfo
from agent_core.tools.runtime import ToolOutcome

__all__ = ["ChatAppBackend", "chat_app_host"]

DENIED = "The user denied this tool call."


class ChatAppBackend:
    """The chat ``session``'s side of one view of ``server``'s tool; ``ask`` shows an approval
    question to the user (the front end answers it with ``decide``, as for the model's calls)."""

    def __init__(
        self, session: ChatSession, client: AppServer, server: str, ask: Callable[[ApprovalRequest], None]
    ) -> None:
        self._session = session
        self._client = client
        self._server = server
        self._ask = ask

    def tools(self) -> Sequence[ToolInfo]:
        return self._client.app_tools(self._server)

    async def call_tool(self, call_id: str, tool: ToolInfo, arguments: Mapping[str, Any]) -> ToolOutcome:
        session = self._session
        # The tool itself joins what the chat offers: one only views may call is not among them,
        # and its own descriptor may say to ask before every call.
        offered = [tool, *session.services.tools.tools()]
        every_call = asks_every_call(session.agent.config, offered, tool.server, tool.name)
        ref = ItemRef("tool", tool.name, tool.server)
        policy = session.settings.chat.tool_permission
        if asks_first(ref, tool.permission_required, policy, session.allowed_tools, every_call=every_call):
            request = tool_approval(
                call_id,
                tool.server,
                tool.name,
                arguments,
                agent=session.agent,
                tools=offered,
                origin=APP_ORIGIN,
            )
            self._ask(request)
            decision = await request.wait()
            if decision is ApprovalDecision.DENY:
                raise AppCallDenied(tool.server, DENIED)
            if decision is ApprovalDecision.ALLOW_FOR_CHAT and not every_call:
                session.allow_tool_for_chat(ref)
        return await session.services.tools.call_tool(tool.server, tool.name, arguments)

    async def read_resource(self, uri: str) -> ResourceContent:
        return await self._client.read_resource(self._server, uri)

    def record(self, exchange: AppExchange) -> None:
        record_app_exchange(self._session.store, self._session.id, exchange)


def chat_app_host(
    session: ChatSession,
    client: AppServer,
    view: AppView,
    *,
    call_id: str,
    arguments: Mapping[str, Any],
    send: Callable[[dict[str, Any]], None],
    on_event: Callable[[AppEvent], None],
    ask: Callable[[ApprovalRequest], None],
    context: HostContext | None = None,
    granted_permissions: frozenset[str] = frozenset(),
    limits: AppLimits | None = None,
) -> AppHost:
    """The host of ``view`` (the UI of tool call ``call_id`` with ``arguments``) in ``session``;
    ``client`` is the workspace's MCP manager. Give it the call's result with ``deliver_result``
    and close it (``await host.close()``) when the chat closes."""
    backend = ChatAppBackend(session, client, view.server, ask)
    return AppHost(
        view,
        backend,
        call_id=call_id,
        arguments=arguments,
        send=send,
        on_event=on_event,
        context=context,
        granted_permissions=granted_permissions,
        limits=limits,
    )
