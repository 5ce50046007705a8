"""One MCP server: a long-lived task owns its connection, from start to stop or crash.

The owner task enters the SDK client (and so the transport's anyio task groups and cancel scopes)
and leaves it in the same task, which anyio requires. Requests are sent from the callers' tasks
through the connected client, each with its own timeout: the SDK's sessions are safe to use from
any task, and this keeps concurrent calls concurrent. A restart or crash of one server touches
nothing else.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import anyio
import mcp_types
from mcp import Client
from mcp.client import Transport
from mcp.client.subscriptions import ResourceUpdated, ServerEvent
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agent_core import __version__
from agent_core.agent.schema import (
    InternalServerConfig,
    McpServerConfig,
    ServerLogLevel,
    SseServerConfig,
    StdioServerConfig,
    StreamableHttpServerConfig,
)
from agent_core.agent.variables import VariableContext
from agent_core.errors import ContextDeskError
from agent_core.mcp._content import content_part, prompt_message, resource_part, tool_annotations
from agent_core.mcp._live import ChangeRefresher, ChangeWatcher
from agent_core.mcp._logs import LogBuffer, StderrCapture
from agent_core.mcp._pagination import all_pages
from agent_core.mcp._protocol_guard import chatter_text
from agent_core.mcp._sampling import SamplingCallback
from agent_core.mcp._server_requests import answer_elicitation, roots_result
from agent_core.mcp._structured import checked_problem, structured_text
from agent_core.mcp._tasks import ToolTasks, runs_as_task
from agent_core.mcp._transports import ObservedTransport, http_transport, stdio_parameters, stdio_transport
from agent_core.mcp.builtins import BUILTIN_SERVERS, BuiltinContext
from agent_core.mcp.elicitation import ElicitationHandler
from agent_core.mcp.errors import (
    SERVER_ERRORS,
    McpServerError,
    McpServerNotReadyError,
    closed_message,
    explain_failure,
    is_server_failure,
)
from agent_core.mcp.oauth import SignInHandler
from agent_core.mcp.roots import server_roots
from agent_core.mcp.settings import effective_tool_settings
from agent_core.mcp.types import (
    PromptArgument,
    PromptInfo,
    PromptResult,
    ResourceContent,
    ResourceInfo,
    ServerState,
    ServerStatus,
    ToolInfo,
    ToolResult,
)
from agent_core.tools.progress import current_progress_listener, progress_report, task_report
from agent_core.tools.sampling_router import SamplingLimits, SamplingRouter

__all__ = ["ServerConnection", "StatusListener"]

logger = logging.getLogger(__name__)

StatusListener = Callable[[ServerStatus], None]
T = TypeVar("T")

# Tools one server may contribute: each is a candidate that per-message selection embeds and ranks,
# so a server offering 10,000 would make the first selection take minutes. The rest are left out,
# visibly (the server's status says so).
MAX_TOOLS_PER_SERVER = 1000
MAX_SUBSCRIPTIONS = 100  # resources one server keeps current (each one a line in a small dict)
STOP_GRACE_SECONDS = 10.0  # the SDK bounds a stdio shutdown at a few seconds; this is the backstop


class ServerConnection:
    """The life of one configured server: start, status, requests, restart, stop."""

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

    # --- state --------------------------------------------------------------------------

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

    # --- life -----------------------------------------------------------------------------

    async def start(self) -> ServerStatus:
        """Start the server; returns once it is ready or has failed (never raises for a bad server)."""
        if not self.config.enabled:
            self._set_state(ServerState.DISABLED)
            return self.status()
        if self._task is not None and not self._task.done():
            await self._settled.wait()
            return self.status()
        self._settled = asyncio.Event()
        self._wake = asyncio.Event()
        self._stopping = self._lost = False
        self._bad_output = None
        self._fatal_error = None
        self._log.clear()
        self._info = (None, None, None, None)
        self._tools = ()
        self._set_state(ServerState.STARTING)
        self._task = asyncio.create_task(self._run(), name=f"mcp-server-{self.name}")
        try:
            await asyncio.wait_for(
                asyncio.shield(self._settled.wait()), self.config.start_timeout_seconds + STOP_GRACE_SECONDS
            )
        except TimeoutError:
            # The owner task ignored its own start timeout (a shutdown that hangs): give up on it.
            self._task.cancel()
            self._set_state(
                ServerState.FAILED,
                f"MCP server '{self.name}' did not start or stop in time. Fix: restart it, or check the server.",
            )
        return self.status()

    async def stop(self) -> None:
        """Stop the server and wait (bounded) until its process or connection is gone."""
        task = self._task
        if task is None or task.done():
            if self._state in (ServerState.READY, ServerState.STARTING):
                self._set_state(ServerState.STOPPED)
            return
        self._stopping = True
        self._wake.set()
        if self._state is ServerState.STARTING:
            task.cancel()
        done, _ = await asyncio.wait({task}, timeout=STOP_GRACE_SECONDS)
        if not done:
            task.cancel()
            await asyncio.wait({task}, timeout=STOP_GRACE_SECONDS)
        if self.config.enabled:
            self._set_state(ServerState.STOPPED)

    async def restart(self) -> ServerStatus:
        """Stop the server if it runs, then start it again."""
        await self.stop()
        return await self.start()

    async def _run(self) -> None:
        try:
            # Before the start deadline, and off the event loop: expanding an ${input:...}
            # variable may read the keyring or wait for the user's answer, and the loop serves
            # every other server and chat meanwhile.
            target = await asyncio.to_thread(self._target)
            async with asyncio.timeout(self.config.start_timeout_seconds) as deadline:
                self._start_deadline = deadline
                async with AsyncExitStack() as stack:
                    client = await stack.enter_async_context(self._client_for(target))
                    _validate_results_ourselves(client)
                    tools = await self._list_tools(client)
                    deadline.reschedule(None)
                    self._start_deadline = None
                    info = client.server_info
                    self._info = (
                        info.name if info else None,
                        info.version if info else None,
                        client.protocol_version,
                        client.instructions,
                    )
                    self._tools = tools[:MAX_TOOLS_PER_SERVER]
                    self._client = client
                    await self._set_log_level(client)
                    self._watch_changes(client)
                    self._set_state(ServerState.READY, self._too_many_tools(len(tools)))
                    self._settled.set()
                    await self._wake.wait()
                    self._client = None
                    if self._watcher is not None:
                        self._watcher.close()  # before the client's exit: its stream lives in the client
            if self._stopping:
                self._set_state(ServerState.STOPPED)
            else:
                await self._drain_stderr()
                self._set_state(ServerState.FAILED, self._closed_reason())
        except asyncio.CancelledError:
            if not self._stopping:
                self._set_state(ServerState.FAILED, f"MCP server '{self.name}' was cancelled while starting.")
            raise
        except Exception as error:  # top-level handler of the server's task
            # The status reason says what went wrong; the traceback is for --verbose only. The SDK
            # wraps a server's failure in (nested) exception groups of its task groups.
            logger.debug("MCP server %s failed", self.name, exc_info=True)
            if not is_server_failure(error):
                logger.error(
                    "MCP server %s failed unexpectedly (%s: %s); run with --verbose for details",
                    self.name,
                    type(error).__name__,
                    error,
                )
            await self._fail(error)
        finally:
            self._client = None
            self._lists.close()
            if self._watcher is not None:
                self._watcher.close()
                self._watcher = None
            self._resource_versions.clear()
            if self._stderr is not None:
                self._stderr.close_writer()
            self._settled.set()

    def _too_many_tools(self, offered: int) -> str | None:
        if offered <= MAX_TOOLS_PER_SERVER:
            return None
        return (
            f"MCP server '{self.name}' offers {offered} tools; only the first {MAX_TOOLS_PER_SERVER} are "
            f"used and {offered - MAX_TOOLS_PER_SERVER} are left out. Fix: configure the server to offer "
            "fewer tools (most servers have an option to enable only some), or split it into several servers."
        )

    async def _fail(self, error: BaseException) -> None:
        if self._stopping:
            self._set_state(ServerState.STOPPED)
            return
        await self._drain_stderr()
        if (self._lost and self._state is ServerState.READY) or self._fatal_error is not None:
            reason = self._closed_reason()
        else:
            reason = explain_failure(
                self.name, self.config, error, log_tail=self._log.tail(10), bad_output=self._bad_output
            )
        logger.info("MCP server %s failed: %s", self.name, reason)
        self._set_state(ServerState.FAILED, reason)

    def _closed_reason(self) -> str:
        if self._fatal_error is not None:
            return str(self._fatal_error)
        return closed_message(
            self.name, self.config, log_tail=self._log.tail(10), bad_output=self._bad_output
        )

    async def _drain_stderr(self) -> None:
        if self._stderr is not None:
            await self._stderr.wait_drained()

    def _on_closed(self) -> None:
        if not self._stopping:
            self._lost = True
        self._wake.set()

    def _on_bad_message(self, error: Exception) -> None:
        self._bad_output = chatter_text(error)
        self._log.append(f"stdout (not JSON-RPC): {self._bad_output}")

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

    def _watch_changes(self, client: Client) -> None:
        """From 2026-07-28 on, change notifications come only on a stream the client opens."""
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            self._watcher = ChangeWatcher(client, self._on_change_event, self._log)
            self._watcher.listen(self._resource_versions)

    def _on_change_event(self, event: ServerEvent) -> None:
        self._note_change(event.uri if isinstance(event, ResourceUpdated) else None)

    async def _on_server_notification(self, message: mcp_types.ServerNotification | Exception) -> None:
        """Change notifications of older protocol revisions; called by the SDK's reader, so it only
        notes them and returns."""
        if isinstance(
            message,
            mcp_types.ToolListChangedNotification
            | mcp_types.PromptListChangedNotification
            | mcp_types.ResourceListChangedNotification,
        ):
            self._note_change()
        elif isinstance(message, mcp_types.ResourceUpdatedNotification):
            self._note_change(message.params.uri)

    def _note_change(self, updated_uri: str | None = None) -> None:
        if updated_uri is not None:
            if updated_uri not in self._resource_versions:
                return  # only what was subscribed: a server cannot grow the dict
            self._resource_versions[updated_uri] += 1
        self._lists.request()

    async def _refresh_lists(self) -> None:
        """Re-list the tools and report the status, which front ends redraw (and re-index) from."""
        client = self._client
        if client is None or self._state is not ServerState.READY:
            return
        try:
            async with asyncio.timeout(self.config.call_timeout_seconds):
                tools = await self._list_tools(client)
        except SERVER_ERRORS as error:
            self._log.append(f"(ContextDesk) re-listing the tools after a change failed: {error}")
            return
        if self._client is client and self._state is ServerState.READY:
            self._tools = tools[:MAX_TOOLS_PER_SERVER]
            self._set_state(ServerState.READY, self._too_many_tools(len(tools)))

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

    # --- what the server asks of us ------------------------------------------------------------

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

    async def _list_tools(self, client: Client) -> tuple[ToolInfo, ...]:
        if client.server_capabilities.tools is None:
            return ()
        tools: list[ToolInfo] = []
        for page in await all_pages(lambda cursor: client.list_tools(cursor=cursor)):
            for tool in page.tools:
                annotations = tool_annotations(tool.annotations)
                settings = effective_tool_settings(self.config, tool.name, annotations)
                tools.append(
                    ToolInfo(
                        server=self.name,
                        name=tool.name,
                        description=tool.description or "",
                        input_schema=tool.input_schema,
                        include=settings.include,
                        permission_required=settings.permission_required,
                        title=tool.title,
                        annotations=annotations,
                        output_schema=tool.output_schema,
                        task_support=tool.execution.task_support if tool.execution else None,
                    )
                )
        return tuple(tools)

    # --- requests ---------------------------------------------------------------------------

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
            raise McpServerError(self.name, await self._explain_request_error(what, error)) from error

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
        if isinstance(error, MCPError):
            return f"{where} refused {what}: {error.error.message}"
        return explain_failure(self.name, self.config, error, log_tail=self._log.tail(10))

    async def call_tool(self, tool: str, arguments: Mapping[str, Any] | None = None) -> ToolResult:
        """Run one tool. Every failure, the server's or the connection's, comes back as an error result."""
        started = time.monotonic()

        def result(text: str, is_error: bool, **details: Any) -> ToolResult:
            elapsed = time.monotonic() - started
            return ToolResult(self.name, tool, text, is_error, elapsed, **details)

        listener = current_progress_listener()

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            if listener is not None:
                listener(progress_report(progress, total, message))

        def on_task_status(status: str, message: str | None) -> None:
            if listener is not None:
                listener(task_report(status, message))

        listed = next((t for t in self._tools if t.name == tool), None)

        def send(client: Client) -> Awaitable[mcp_types.CallToolResult]:
            if runs_as_task(client, listed.task_support if listed else None):
                return self._tasks.call(
                    client,
                    tool,
                    arguments or {},
                    request_timeout=self.config.call_timeout_seconds,
                    on_status=on_task_status,
                )
            return client.call_tool(
                tool,
                dict(arguments or {}),
                read_timeout_seconds=self.config.call_timeout_seconds,
                # A progress token goes with the call only when someone shows the progress.
                progress_callback=on_progress if listener is not None else None,
            )

        try:
            answer = await self._request(f"the call to {tool}", send)
        except McpServerError as error:
            return result(str(error), True)
        parts = tuple(content_part(block) for block in answer.content)
        structured = answer.structured_content
        is_error = bool(answer.is_error)
        schema = listed.output_schema if listed else None
        problem = await checked_problem(schema, structured, is_error=is_error)
        text = "\n".join(p.describe() for p in parts)
        if structured is not None and (extra := structured_text(structured, text)):
            text = f"{text}\n{extra}" if text else extra
        if problem is not None:
            text = f"{text}\n[structured content not valid: {problem}]"
        return result(text, is_error, structured=structured, content=parts, structured_problem=problem)

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

    async def list_resources(self) -> list[ResourceInfo]:
        """The server's resources (empty when it has none).

        Raises:
            McpServerError: the server is not ready or the request failed.
        """
        if self._ready_client().server_capabilities.resources is None:
            return []
        pages = await all_pages(
            lambda cursor: self._request("the resource list", partial(Client.list_resources, cursor=cursor))
        )
        return [
            ResourceInfo(
                server=self.name,
                uri=str(r.uri),
                name=r.name,
                description=r.description or "",
                mime_type=r.mime_type,
                title=r.title,
                size=r.size,
            )
            for page in pages
            for r in page.resources
        ]

    async def read_resource(self, uri: str) -> ResourceContent:
        """Read one resource.

        Raises:
            McpServerError: the server is not ready, does not know ``uri``, or the request failed.
        """
        answer = await self._request(f"reading {uri}", lambda client: client.read_resource(uri))
        return ResourceContent(self.name, uri, tuple(resource_part(part) for part in answer.contents))

    async def subscribe_resource(self, uri: str) -> bool:
        """Ask the server to report changes of ``uri``; False when it does not offer subscriptions.

        Raises:
            McpServerError: the server is not ready or refused the subscription.
        """
        client = self._ready_client()
        offered = client.server_capabilities.resources
        if offered is None or not offered.subscribe:
            return False
        if uri in self._resource_versions:
            return True
        if len(self._resource_versions) >= MAX_SUBSCRIPTIONS:
            return False
        if self._watcher is not None:
            self._resource_versions[uri] = 0
            self._watcher.listen(self._resource_versions)
            return True
        await self._request(
            f"subscribing to {uri}", lambda c: c.session.send_request(_subscribe(uri), mcp_types.EmptyResult)
        )
        self._resource_versions[uri] = 0
        return True

    def resource_version(self, uri: str) -> int | None:
        """How many updates of a subscribed ``uri`` arrived (None when it is not subscribed)."""
        return self._resource_versions.get(uri)

    async def list_prompts(self) -> list[PromptInfo]:
        """The server's prompts (empty when it has none).

        Raises:
            McpServerError: the server is not ready or the request failed.
        """
        if self._ready_client().server_capabilities.prompts is None:
            return []
        pages = await all_pages(
            lambda cursor: self._request("the prompt list", partial(Client.list_prompts, cursor=cursor))
        )
        return [
            PromptInfo(
                server=self.name,
                name=p.name,
                description=p.description or "",
                title=p.title,
                arguments=tuple(
                    PromptArgument(a.name, a.description or "", bool(a.required)) for a in p.arguments or ()
                ),
            )
            for page in pages
            for p in page.prompts
        ]

    async def get_prompt(self, name: str, arguments: Mapping[str, str] | None = None) -> PromptResult:
        """A prompt filled in with ``arguments``.

        Raises:
            McpServerError: the server is not ready, does not know the prompt, or the request failed.
        """
        answer = await self._request(
            f"the prompt {name}", lambda client: client.get_prompt(name, dict(arguments or {}))
        )
        return PromptResult(
            self.name, name, answer.description or "", tuple(prompt_message(m) for m in answer.messages)
        )


async def _keep_result(name: str, result: mcp_types.CallToolResult) -> None:
    """Stands in for the SDK's output-schema check, which raises and loses the result
    (``call_tool`` checks it against the listed schema and shows why it does not match)."""


def _validate_results_ourselves(client: Client) -> None:
    client.session.validate_tool_result = _keep_result  # type: ignore[method-assign]


# logging/setLevel and resources/subscribe left the protocol in 2026-07-28 (the SDK's helpers for
# them warn so); they are sent only to servers of older revisions, which have them.


def _set_level(level: ServerLogLevel) -> mcp_types.SetLevelRequest:
    return mcp_types.SetLevelRequest(params=mcp_types.SetLevelRequestParams(level=level))


def _subscribe(uri: str) -> mcp_types.SubscribeRequest:
    return mcp_types.SubscribeRequest(params=mcp_types.SubscribeRequestParams(uri=uri))
