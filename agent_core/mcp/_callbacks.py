"""What a server asks of us and tells us on its own: elicitation, its roots, its log messages (and
the level we want them from)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from pathlib import Path

import mcp_types
from mcp import Client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agent_core.agent.schema import ServerLogLevel
from agent_core.mcp._connection_state import ConnectionState
from agent_core.mcp._server_requests import answer_elicitation, roots_result
from agent_core.mcp.errors import SERVER_ERRORS
from agent_core.mcp.roots import server_roots
from agent_core.mcp.types import ServerState

__all__ = ["ServerCallbacks"]

logger = logging.getLogger(__name__)


class ServerCallbacks(ConnectionState):
    """The SDK's callbacks for what the server sends unasked, and the roots it is told of."""

    async def _on_server_log(self, params: mcp_types.LoggingMessageNotificationParams) -> None:
        # The ring buffer bounds what a flood of log messages can hold; nothing reaches the chat.
        self._log.append(f"{params.level}: {params.data}")

    async def _set_log_level(self, client: Client) -> None:
        """Ask for the server's log messages from the configured level up (older protocol revisions;
        newer ones carry the level on each request, see ``_client_for``)."""
        if client.server_capabilities.logging is None or client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return
        try:
            async with asyncio.timeout(self.config.call_timeout_seconds):
                await client.session.send_request(_set_level(self.config.log_level), mcp_types.EmptyResult)
        except SERVER_ERRORS as error:
            self._log.append(f"(ContextDesk) the server refused log level {self.config.log_level}: {error}")

    async def _on_elicit(
        self, context: object, params: mcp_types.ElicitRequestParams
    ) -> mcp_types.ElicitResult:
        return await answer_elicitation(self.name, self._elicitation, params, self._log.append)

    async def _on_list_roots(self, context: object) -> mcp_types.ListRootsResult:
        return roots_result(self.roots)

    @property
    def roots(self) -> tuple[Path, ...]:
        """The folders this server is told it may work in."""
        return server_roots(self.config, self._agent_roots)

    async def set_agent_roots(self, roots: Sequence[Path]) -> None:
        """Use the agent's new workspace folder(s); a ready server whose roots change is told so."""
        before = self.roots
        self._agent_roots = tuple(roots)
        client = self._client
        if self.roots == before or client is None or self._state is not ServerState.READY:
            return
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return  # 2026-07-28 dropped the notification: such a server asks for the roots each time
        try:
            async with asyncio.timeout(self.config.call_timeout_seconds):
                await client.session.send_notification(mcp_types.RootsListChangedNotification())
        except SERVER_ERRORS as error:
            logger.info("MCP server %s was not told its roots changed: %s", self.name, error)


# logging/setLevel left the protocol in 2026-07-28 (the SDK's helper for it warns so); it is sent
# only to servers of older revisions, which have it.


def _set_level(level: ServerLogLevel) -> mcp_types.SetLevelRequest:
    return mcp_types.SetLevelRequest(params=mcp_types.SetLevelRequestParams(level=level))
