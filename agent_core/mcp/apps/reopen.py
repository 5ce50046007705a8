"""A saved tool call's UI shown again: the view its record names, read anew from its server, or
the reason it cannot be (the call had no UI, the server is gone or not running, the tool's UI
changed, the resource cannot be read). The record keeps the call's input and result."""

from __future__ import annotations

from typing import Protocol

from agent_core.mcp.apps.errors import AppUnavailableError
from agent_core.mcp.apps.view import AppServer, AppView, app_tool, load_app_view
from agent_core.mcp.errors import UnknownServerError
from agent_core.mcp.types import ServerState, ServerStatus
from agent_core.store.records import ToolCallRecord

__all__ = ["ReopenServer", "has_app", "reopen_app_view"]


class ReopenServer(AppServer, Protocol):
    def status(self, server: str) -> ServerStatus: ...


def has_app(record: ToolCallRecord) -> bool:
    """Whether the call was made to a tool with a UI (a front end offers to show it again)."""
    return record.ui_resource_uri is not None


async def reopen_app_view(client: ReopenServer, record: ToolCallRecord) -> AppView:
    """The view of the saved call ``record``, as its server serves it now. Render it with an
    ``AppHost`` given ``record.arguments``, then ``deliver_result(record)``.

    Raises:
        AppUnavailableError: it cannot be shown; the message says why (show the text result).
    """
    server, tool, uri = record.server, record.tool, record.ui_resource_uri
    if uri is None:
        raise AppUnavailableError(server, f"The call of '{tool}' had no UI: its text result is all there is.")
    try:
        status = client.status(server)
    except UnknownServerError:
        raise AppUnavailableError(
            server,
            f"The UI of '{tool}' cannot be shown again: this agent has no MCP server '{server}' any more. "
            "Its text result is below.",
        ) from None
    if status.state is not ServerState.READY:
        why = f": {status.reason}" if status.reason else ""
        raise AppUnavailableError(
            server,
            f"The UI of '{tool}' cannot be shown again: MCP server '{server}' is {status.state.value}{why}. "
            f"Fix: start it, then open the chat again.",
        )
    now = app_tool(client.app_tools(server), server, tool).ui
    current = now.resource_uri if now is not None else None
    if current != uri:
        raise AppUnavailableError(
            server,
            f"The UI of '{tool}' changed since this call (it was {uri}, now {current}): the old one "
            "cannot be shown. Call the tool again to see its new UI.",
        )
    return await load_app_view(client, server, tool)
