"""Connecting to a server: the transport its configuration names (stdio, SSE, streamable HTTP or a
built-in server in process), watched, and the SDK client over it with our callbacks."""

from __future__ import annotations

import asyncio

import mcp_types
from mcp import Client
from mcp.client import Transport
from mcp.server.mcpserver import MCPServer

from agent_core import __version__
from agent_core.agent.schema import (
    InternalServerConfig,
    SseServerConfig,
    StdioServerConfig,
    StreamableHttpServerConfig,
)
from agent_core.errors import ContextDeskError
from agent_core.mcp._callbacks import ServerCallbacks
from agent_core.mcp._changes import Changes
from agent_core.mcp._logs import StderrCapture
from agent_core.mcp._protocol_guard import chatter_text
from agent_core.mcp._sampling import SamplingCallback
from agent_core.mcp._transports import ObservedTransport, http_transport, stdio_parameters, stdio_transport
from agent_core.mcp.builtins import BUILTIN_SERVERS
from agent_core.mcp.errors import McpServerError
from agent_core.sampling_router import SamplingLimits

__all__ = ["Connecting"]


class Connecting(Changes, ServerCallbacks):
    """The client for the server, and what its transport reports (closed, bad output, sign-in)."""

    def _on_closed(self) -> None:
        if not self._stopping:
            self._lost = True
        self._wake.set()

    def _on_bad_message(self, error: Exception) -> None:
        self._bad_output = chatter_text(error)
        self._log.append(f"stdout (not JSON-RPC): {self._bad_output}")

    def _target(self) -> Transport | MCPServer:
        config = self.config
        if isinstance(config, StdioServerConfig):
            parameters = stdio_parameters(self.name, config, variables=self._variables)
            self._stderr = StderrCapture(self._log, self.name)
            inner = stdio_transport(parameters, self._stderr)
        elif isinstance(config, SseServerConfig | StreamableHttpServerConfig):
            inner = http_transport(
                self.name,
                config,
                self._variables,
                sign_in=self._sign_in,
                waiting_on_user=self._waiting_on_user,
                on_sign_in_error=self._on_fatal_error,
                on_response=self._scope_refusal.on_response,
            )
        elif isinstance(config, InternalServerConfig):
            builtin = BUILTIN_SERVERS.get(config.tool)
            if builtin is None:
                raise McpServerError(
                    self.name,
                    f"MCP server '{self.name}': there is no built-in server '{config.tool}'. "
                    f"Fix: set `tool` to one of {', '.join(sorted(BUILTIN_SERVERS))}.",
                )
            return builtin.build(self._context, config.options)
        return ObservedTransport(
            inner,
            self.name,
            on_closed=self._on_closed,
            on_bad=self._on_bad_message,
            on_invalid=self._on_fatal_error,
        )

    def _on_fatal_error(self, error: ContextDeskError) -> None:
        self._fatal_error = error

    def _waiting_on_user(self, waiting: bool) -> None:
        """The start deadline pauses while the user has the OAuth sign-in page (it takes what it takes)."""
        deadline = self._start_deadline
        if deadline is not None and not deadline.expired():
            when = None if waiting else asyncio.get_running_loop().time() + self.config.start_timeout_seconds
            deadline.reschedule(when)

    def _client_for(self, target: Transport | MCPServer) -> Client:
        return Client(
            target,
            # In-process servers go through the SDK's in-memory JSON-RPC transport, like a real one.
            mode="legacy" if isinstance(target, MCPServer) else "auto",
            read_timeout_seconds=self.config.call_timeout_seconds,
            logging_callback=self._on_server_log,
            elicitation_callback=self._on_elicit,
            list_roots_callback=self._on_list_roots,
            log_level=self.config.log_level,
            message_handler=self._on_server_notification,
            client_info=mcp_types.Implementation(name="ContextDesk", version=__version__),
            cache=None,
            # Declared for every server: a request with no chat to ask is refused (fail closed).
            sampling_callback=SamplingCallback(
                self.name,
                self._sampling,
                SamplingLimits(self.config.sampling_max_tokens, self.config.sampling_tokens_per_minute),
            ),
        )
