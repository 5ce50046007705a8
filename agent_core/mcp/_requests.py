"""Requests to a ready server, each with the call timeout; a failure becomes an ``McpServerError``
that says what went wrong."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agent_core.mcp._connection_state import ConnectionState
from agent_core.mcp.errors import SERVER_ERRORS, McpServerError, McpServerNotReadyError, explain_failure
from agent_core.mcp.types import ServerState

__all__ = ["Requests"]

T = TypeVar("T")


class Requests(ConnectionState):
    """Sending one request to the server and explaining its failure."""

    def _ready_client(self) -> Client:
        client = self._client
        if client is None or self._state is not ServerState.READY:
            detail = f": {self._reason}" if self._reason else ""
            raise McpServerNotReadyError(
                self.name,
                f"MCP server '{self.name}' is {self._state.value}{detail}"
                + ("" if self._reason else f". Fix: start it (restart '{self.name}')."),
            )
        return client

    async def _request(self, what: str, send: Callable[[Client], Awaitable[T]]) -> T:
        """Send one request with the call timeout; any failure becomes an McpServerError."""
        client = self._ready_client()
        try:
            async with asyncio.timeout(self.config.call_timeout_seconds):
                return await send(client)
        except SERVER_ERRORS as error:
            timed_out = isinstance(error, TimeoutError) or (
                isinstance(error, MCPError) and error.code == REQUEST_TIMEOUT
            )
            raise McpServerError(
                self.name,
                await self._explain_request_error(what, error),
                timed_out_after=self.config.call_timeout_seconds if timed_out else None,
            ) from error

    async def _explain_request_error(self, what: str, error: BaseException) -> str:
        where = f"MCP server '{self.name}'"
        if isinstance(error, TimeoutError) or (isinstance(error, MCPError) and error.code == REQUEST_TIMEOUT):
            return (
                f"{where} did not answer {what} within {self.config.call_timeout_seconds:g} s. "
                "Fix: try again, or raise `callTimeoutSeconds` for this server."
            )
        if (isinstance(error, MCPError) and error.code == CONNECTION_CLOSED) or isinstance(
            error, anyio.BrokenResourceError | anyio.ClosedResourceError
        ):
            await self._drain_stderr()
            return f"The connection ended during {what}. " + self._closed_reason()
        refused_scope = self._scope_refusal.reason(self.name, what, error)
        if refused_scope is not None:
            return refused_scope
        if isinstance(error, MCPError):
            return f"{where} refused {what}: {error.error.message}"
        return explain_failure(self.name, self.config, error, log_tail=self._log.tail(10))

    async def ping(self) -> float:
        """Round-trip time in seconds.

        Raises:
            McpServerError: the server is not ready or did not answer.
        """
        started = time.monotonic()

        async def send(client: Client) -> None:
            if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                # Ping left the protocol in 2026-07-28; any cheap request proves the server answers.
                await client.list_tools()
            else:
                await client.session.send_ping()

        await self._request("a ping", send)
        return time.monotonic() - started
