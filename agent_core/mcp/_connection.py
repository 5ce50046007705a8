"""One MCP server: a long-lived task owns its connection, from start to stop or crash.

The owner task enters the SDK client (and so the transport's anyio task groups and cancel scopes)
and leaves it in the same task, which anyio requires. Requests are sent from the callers' tasks
through the connected client, each with its own timeout: the SDK's sessions are safe to use from
any task, and this keeps concurrent calls concurrent. A restart or crash of one server touches
nothing else.

This module holds the life cycle; the rest of a connection is in its parts: ``_connection_state``
(state and status), ``_requests``, ``_listing``, ``_changes``, ``_callbacks`` (what the server asks
and tells), ``_connecting`` (transport and client) and ``_tool_calls``.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import AsyncExitStack

import mcp_types
from mcp import Client

from agent_core.mcp._connecting import Connecting
from agent_core.mcp._connection_state import MAX_TOOLS_PER_SERVER, StatusListener
from agent_core.mcp._tool_calls import ToolCalls
from agent_core.mcp.errors import explain_failure, is_server_failure, root_cause
from agent_core.mcp.types import ServerState, ServerStatus

__all__ = ["ServerConnection", "StatusListener"]

logger = logging.getLogger(__name__)

STOP_GRACE_SECONDS = 10.0  # the SDK bounds a stdio shutdown at a few seconds; this is the backstop


class ServerConnection(Connecting, ToolCalls):
    """The life of one configured server: start, status, requests, restart, stop."""

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

    async def _fail(self, error: BaseException) -> None:
        if self._stopping:
            self._set_state(ServerState.STOPPED)
            return
        await self._drain_stderr()
        if (self._lost and self._state is ServerState.READY) or self._fatal_error is not None:
            reason = self._closed_reason()
        else:
            reason = self._scope_refusal.reason(
                self.name, "the connection", root_cause(error)
            ) or explain_failure(
                self.name, self.config, error, log_tail=self._log.tail(10), bad_output=self._bad_output
            )
        logger.info("MCP server %s failed: %s", self.name, reason)
        self._set_state(ServerState.FAILED, reason)


async def _keep_result(name: str, result: mcp_types.CallToolResult) -> None:
    """Stands in for the SDK's output-schema check, which raises and loses the result
    (``call_tool`` checks it against the listed schema and shows why it does not match)."""


def _validate_results_ourselves(client: Client) -> None:
    client.session.validate_tool_result = _keep_result  # type: ignore[method-assign]
