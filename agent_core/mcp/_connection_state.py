"""What one server's connection holds and reports: its state, its tools, its status and why it
ended."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mcp import Client

from agent_core.agent.schema import McpServerConfig
from agent_core.agent.variables import VariableContext
from agent_core.errors import ContextDeskError
from agent_core.mcp._live import ChangeRefresher, ChangeWatcher
from agent_core.mcp._logs import LogBuffer, StderrCapture
from agent_core.mcp._scope_refusal import ScopeRefusal
from agent_core.mcp._tasks import ToolTasks
from agent_core.mcp.builtins import BuiltinContext
from agent_core.mcp.elicitation import ElicitationHandler
from agent_core.mcp.errors import closed_message
from agent_core.mcp.oauth import SignInHandler
from agent_core.mcp.types import ServerState, ServerStatus, ToolInfo
from agent_core.sampling_router import SamplingRouter

__all__ = ["MAX_TOOLS_PER_SERVER", "ConnectionState", "StatusListener"]

logger = logging.getLogger(__name__)

StatusListener = Callable[[ServerStatus], None]

# Tools one server may contribute: each is a candidate that per-message selection embeds and ranks,
# so a server offering 10,000 would make the first selection take minutes. The rest are left out,
# visibly (the server's status says so).
MAX_TOOLS_PER_SERVER = 1000


class ConnectionState:
    """The state of one configured server, which the other parts of its connection share."""

    def __init__(
        self,
        name: str,
        config: McpServerConfig,
        *,
        context: BuiltinContext | None = None,
        on_status: StatusListener | None = None,
        variables: VariableContext | None = None,
        elicitation: ElicitationHandler | None = None,
        roots: Sequence[Path] = (),
        sampling: SamplingRouter | None = None,
        sign_in: SignInHandler | None = None,
    ) -> None:
        self.name = name
        self._sign_in = sign_in
        self._start_deadline: asyncio.Timeout | None = None
        self._fatal_error: ContextDeskError | None = None  # why a sign-in or an invalid answer ended it
        self._scope_refusal = ScopeRefusal()  # the server's last 403 insufficient_scope (HTTP only)
        self._sampling = sampling
        self.config = config
        self._context = context or BuiltinContext()
        self._variables = variables
        self._on_status = on_status
        self._log = LogBuffer()
        self._state = ServerState.STOPPED if config.enabled else ServerState.DISABLED
        self._reason: str | None = None
        self._client: Client | None = None
        self._info: tuple[str | None, str | None, str | None, str | None] = (None, None, None, None)
        self._tools: tuple[ToolInfo, ...] = ()
        self._task: asyncio.Task[None] | None = None
        self._settled = asyncio.Event()
        self._wake = asyncio.Event()
        self._stopping = False
        self._lost = False
        self._bad_output: str | None = None
        self._stderr: StderrCapture | None = None
        self._elicitation = elicitation
        self._agent_roots = tuple(roots)
        self._lists = ChangeRefresher(self._refresh_lists)
        self._resource_versions: dict[str, int] = {}  # subscribed resource -> updates received
        self._watcher: ChangeWatcher | None = None
        self._tasks = ToolTasks(self._log.append)

    @property
    def state(self) -> ServerState:
        return self._state

    @property
    def tools(self) -> tuple[ToolInfo, ...]:
        return self._tools if self._state is ServerState.READY else ()

    def status(self) -> ServerStatus:
        server_name, server_version, protocol, instructions = self._info
        return ServerStatus(
            name=self.name,
            transport=self.config.type,
            state=self._state,
            reason=self._reason,
            server_name=server_name,
            server_version=server_version,
            protocol_version=protocol,
            instructions=instructions,
            tool_count=len(self.tools),
            log_tail=self._log.tail(20),
        )

    def _set_state(self, state: ServerState, reason: str | None = None) -> None:
        self._state = state
        self._reason = reason
        if state is not ServerState.READY:
            self._client = None
        logger.debug("MCP server %s: %s %s", self.name, state.value, reason or "")
        if self._on_status is not None:
            try:
                self._on_status(self.status())
            except Exception:  # a front end's listener must not break the server's task
                logger.exception("MCP status listener failed for %s", self.name)

    def _too_many_tools(self, offered: int) -> str | None:
        if offered <= MAX_TOOLS_PER_SERVER:
            return None
        return (
            f"MCP server '{self.name}' offers {offered} tools; only the first {MAX_TOOLS_PER_SERVER} are "
            f"used and {offered - MAX_TOOLS_PER_SERVER} are left out. Fix: configure the server to offer "
            "fewer tools (most servers have an option to enable only some), or split it into several servers."
        )

    def _closed_reason(self) -> str:
        if self._fatal_error is not None:
            return str(self._fatal_error)
        return closed_message(
            self.name, self.config, log_tail=self._log.tail(10), bad_output=self._bad_output
        )

    async def _drain_stderr(self) -> None:
        if self._stderr is not None:
            await self._stderr.wait_drained()

    if TYPE_CHECKING:

        async def _refresh_lists(self) -> None: ...  # the change part's (``_changes``)
