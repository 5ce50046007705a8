"""All the MCP servers of an agent: started together, each on its own, used by name."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from agent_core.agent.schema import McpServerConfig
from agent_core.agent.server_trust import TrustGate
from agent_core.agent.variables import VariableContext
from agent_core.mcp._connection import ServerConnection, StatusListener
from agent_core.mcp.builtins import (
    BuiltinContext,
    MemoriesSource,
    ReferencesSource,
    SkillRanker,
    SkillsSource,
)
from agent_core.mcp.elicitation import ElicitationHandler
from agent_core.mcp.errors import UnknownServerError
from agent_core.mcp.oauth import SignInHandler
from agent_core.mcp.types import (
    PromptInfo,
    PromptResult,
    ResourceContent,
    ResourceInfo,
    ServerState,
    ServerStatus,
    ToolInfo,
    ToolResult,
)
from agent_core.sampling_router import SamplingRouter

__all__ = ["McpManager", "inspect_servers"]

ItemT = TypeVar("ItemT")


class McpManager:
    """The agent's MCP servers. One slow or broken server never delays or breaks the others.

    Use ``async with McpManager(servers) as manager:`` (starts all, stops all), or call
    ``start()`` and ``aclose()`` yourself. Every method runs on the event loop that started it.
    """

    def __init__(
        self,
        servers: Mapping[str, McpServerConfig],
        *,
        references_source: ReferencesSource | None = None,
        memories_source: MemoriesSource | None = None,
        skills_source: SkillsSource | None = None,
        skill_ranker: SkillRanker | None = None,
        on_status: StatusListener | None = None,
        variables: VariableContext | None = None,
        elicitation: ElicitationHandler | None = None,
        roots: Sequence[Path] = (),
        sampling: SamplingRouter | None = None,
        sign_in: SignInHandler | None = None,
        trust: TrustGate | None = None,
    ) -> None:
        """``variables`` gives ``${workspaceFolder}`` and ``${input:id}`` their values (see
        ``agent_core.agent.variables``); without it only environment variables expand.
        ``elicitation`` asks the user what a server asks for (without it every request is declined);
        ``roots`` are the agent's workspace folders, the roots of every server without its own;
        ``sampling`` answers the servers' sampling requests (without it they are refused);
        ``sign_in`` shows an OAuth server's sign-in URL to the user (without it such a server that has
        no valid token fails with "sign in again");
        ``skills_source`` and ``skill_ranker``: the agent's skills and how to rank them for a query,
        for the ``skills`` built-in;
        ``trust``: the servers of an agent folder start only when the user trusts them (without it,
        every server starts: for servers the app itself configures); the others stay ``UNTRUSTED``."""
        self._roots = tuple(roots)  # the agent's, as set_roots last changed them
        context = BuiltinContext(
            references_source or BuiltinContext().references,
            memories_source,
            skills=skills_source or BuiltinContext().skills,
            skill_ranker=skill_ranker,
            workspace_folders=lambda: self._roots,
        )
        variables = variables or VariableContext()  # one, so an ${input:...} is asked once for all servers
        self._connections = {
            name: ServerConnection(
                name,
                config,
                context=context,
                on_status=on_status,
                variables=variables,
                elicitation=elicitation,
                roots=roots,
                sampling=sampling,
                sign_in=sign_in,
            )
            for name, config in servers.items()
        }
        self._on_status = on_status
        self._trust = trust
        self._held: dict[str, ServerStatus] = {}  # servers kept from starting until trusted, by name
        self._allowed(self.server_names, report=False)

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    def _connection(self, server: str) -> ServerConnection:
        try:
            return self._connections[server]
        except KeyError:
            known = ", ".join(self._connections) or "none"
            raise UnknownServerError(
                server, f"there is no MCP server named '{server}' in this agent (servers: {known})"
            ) from None

    @property
    def server_names(self) -> list[str]:
        return list(self._connections)

    async def start(self, servers: list[str] | None = None) -> list[ServerStatus]:
        """Start the servers (all by default) in parallel; returns when each is ready or has failed."""
        names = self.server_names if servers is None else servers
        connections = [self._connection(name) for name in self._allowed(names)]
        await asyncio.gather(*(c.start() for c in connections))
        return [self.status(name) for name in names]

    def _allowed(self, names: list[str], *, report: bool = True) -> list[str]:
        """The servers of ``names`` that may start; the others are held (``UNTRUSTED``) and reported."""
        allowed = []
        for name in names:
            config = self._connection(name).config
            if self._trust is None or not config.enabled or self._trust.allows(name, config):
                self._held.pop(name, None)
                allowed.append(name)
                continue
            held = ServerStatus(name, config.type, ServerState.UNTRUSTED, self._trust.held_reason(name))
            self._held[name] = held
            if report and self._on_status is not None:
                self._on_status(held)
        return allowed

    async def aclose(self) -> None:
        """Stop every server, in parallel."""
        await asyncio.gather(*(c.stop() for c in self._connections.values()))

    def statuses(self) -> list[ServerStatus]:
        """A snapshot of every configured server, in configuration order."""
        return [self._held.get(name) or c.status() for name, c in self._connections.items()]

    def status(self, server: str) -> ServerStatus:
        """Raises: UnknownServerError: no server has that name."""
        return self._held.get(server) or self._connection(server).status()

    def tools(self) -> list[ToolInfo]:
        """The tools of every ready server. Two servers may offer tools of the same name."""
        return [tool for c in self._connections.values() for tool in c.tools]

    def app_tools(self, server: str) -> tuple[ToolInfo, ...]:
        """Every tool of a ready ``server``, with those only its MCP Apps views may call (which
        ``tools()`` leaves out: the model never sees them).

        Raises:
            UnknownServerError: no server has that name.
        """
        return self._connection(server).app_tools

    async def call_tool(
        self, server: str, tool: str, arguments: Mapping[str, Any] | None = None
    ) -> ToolResult:
        """Run a tool; failures come back as a result with ``is_error`` set, never as an exception.

        Raises:
            UnknownServerError: no server has that name.
        """
        return await self._connection(server).call_tool(tool, arguments)

    async def restart(self, server: str) -> ServerStatus:
        """Stop and start one server; the others are not touched.

        Raises:
            UnknownServerError: no server has that name.
        """
        if not self._allowed([server]):
            await self._connection(server).stop()
            return self._held[server]
        return await self._connection(server).restart()

    async def stop(self, server: str) -> None:
        """Raises: UnknownServerError: no server has that name."""
        await self._connection(server).stop()

    async def ping(self, server: str) -> float:
        """Round-trip time in seconds.

        Raises:
            McpServerError: the server is unknown, not ready, or did not answer.
        """
        return await self._connection(server).ping()

    async def list_resources(self, server: str | None = None) -> list[ResourceInfo]:
        """The resources of one server, or of every ready server when ``server`` is None.

        Raises:
            McpServerError: the named server is unknown, not ready, or the request failed.
        """
        if server is not None:
            return await self._connection(server).list_resources()
        return await self._from_ready_servers(ServerConnection.list_resources)

    async def read_resource(self, server: str, uri: str) -> ResourceContent:
        """Raises: McpServerError: the server is unknown, not ready, or cannot read ``uri``."""
        return await self._connection(server).read_resource(uri)

    async def subscribe_resource(self, server: str, uri: str) -> bool:
        """Keep ``uri`` current: True when the server will report its changes (see ``resource_version``).

        Raises:
            McpServerError: the server is unknown, not ready, or refused the subscription.
        """
        return await self._connection(server).subscribe_resource(uri)

    def resource_version(self, server: str, uri: str) -> int | None:
        """How many updates of a subscribed resource arrived; None when it is not subscribed (or the
        server is unknown)."""
        connection = self._connections.get(server)
        return connection.resource_version(uri) if connection is not None else None

    async def list_prompts(self, server: str | None = None) -> list[PromptInfo]:
        """The prompts of one server, or of every ready server when ``server`` is None.

        Raises:
            McpServerError: the named server is unknown, not ready, or the request failed.
        """
        if server is not None:
            return await self._connection(server).list_prompts()
        return await self._from_ready_servers(ServerConnection.list_prompts)

    async def get_prompt(
        self, server: str, name: str, arguments: Mapping[str, str] | None = None
    ) -> PromptResult:
        """Raises: McpServerError: the server is unknown, not ready, or does not know the prompt."""
        return await self._connection(server).get_prompt(name, arguments)

    async def replace(self, server: str, config: McpServerConfig) -> ServerStatus:
        """Run one server with a new configuration (stopped, then started again); the others are
        not touched.

        Raises:
            UnknownServerError: no server has that name.
        """
        connection = self._connection(server)
        await connection.stop()
        connection.config = config
        if not self._allowed([server]):
            return self._held[server]
        return await connection.start()

    def roots_of(self, server: str) -> tuple[Path, ...]:
        """The folders ``server`` is told it may work in.

        Raises:
            UnknownServerError: no server has that name.
        """
        return self._connection(server).roots

    async def set_roots(self, roots: Sequence[Path]) -> None:
        """New workspace folders for the agent: each ready server whose roots change is told
        (``notifications/roots/list_changed``), without a restart."""
        self._roots = tuple(roots)
        await asyncio.gather(*(c.set_agent_roots(roots) for c in self._connections.values()))

    async def _from_ready_servers(
        self, list_one: Callable[[ServerConnection], Awaitable[list[ItemT]]]
    ) -> list[ItemT]:
        """What every ready server lists, asked at once; a server that fails is left out."""
        ready = [c for c in self._connections.values() if c.state is ServerState.READY]
        lists = await asyncio.gather(*(list_one(c) for c in ready), return_exceptions=True)
        return [item for found in lists if isinstance(found, list) for item in found]


async def inspect_servers(
    servers: Mapping[str, McpServerConfig],
    *,
    references_source: ReferencesSource | None = None,
    start_timeout: float | None = None,
    variables: VariableContext | None = None,
    trust: TrustGate | None = None,
) -> tuple[list[ServerStatus], list[ToolInfo]]:
    """Start the servers (waiting at most ``start_timeout`` seconds for each), note what they offer, stop them.

    With ``trust``, a server the user has not trusted is not started and is reported ``UNTRUSTED``."""
    if start_timeout is not None:
        servers = {
            name: config.model_copy(
                update={"start_timeout_seconds": min(config.start_timeout_seconds, start_timeout)}
            )
            for name, config in servers.items()
        }
    async with McpManager(
        servers, references_source=references_source, variables=variables, trust=trust
    ) as manager:
        statuses, tools = manager.statuses(), manager.tools()
    return statuses, tools
