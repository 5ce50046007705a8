"""Tool calls that run as protocol tasks (2025-11-25): create, poll, fetch the result, cancel.

The SDK in use (mcp 2.3.0) has the task types but not their flow: ``ClientSession.call_tool`` takes
no ``task`` parameter, and ``ClientSession.send_request`` checks every ``tools/call`` result against
``CallToolResult``, so the ``CreateTaskResult`` a task-augmented call returns is refused. The one
creating request therefore goes through the session's dispatcher as plain JSON-RPC and is parsed
with the SDK's own model; ``tasks/get``, ``tasks/result`` and ``tasks/cancel`` are sent with
``send_request`` and the SDK's request and result types.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

import mcp_types
from mcp import Client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agent_core.mcp.errors import SERVER_ERRORS

__all__ = ["StatusListener", "ToolTasks", "runs_as_task"]

StatusListener = Callable[[str, str | None], None]  # (status, the server's status message)

TERMINAL = frozenset({"completed", "failed", "cancelled"})
TASK_TTL_MS = 600_000  # how long the server should keep a task: well past any call timeout
MIN_POLL_SECONDS = 0.2  # a server asking for faster polling would have us flood it
MAX_POLL_SECONDS = 5.0  # nor may it make a finished task wait long to be noticed
DEFAULT_POLL_SECONDS = 1.0


def runs_as_task(client: Client, task_support: str | None) -> bool:
    """A tool that requires a task is called as one when the server offers task-augmented calls
    (a tool that merely allows one is called the ordinary way, with progress)."""
    if task_support != "required" or client.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return False  # 2026-07-28 moved tasks out of the core protocol
    offered = client.server_capabilities.tasks
    tools = offered.requests.tools if offered is not None and offered.requests is not None else None
    return tools is not None and tools.call is not None


def poll_seconds(suggested_ms: int | None) -> float:
    if suggested_ms is None:
        return DEFAULT_POLL_SECONDS
    return min(max(suggested_ms / 1000, MIN_POLL_SECONDS), MAX_POLL_SECONDS)


class ToolTasks:
    """The task-run tool calls of one connection, and the cancellations still being sent."""

    def __init__(self, log: Callable[[str], None]) -> None:
        self._log = log
        self._cancelling: set[asyncio.Task[None]] = set()

    async def call(
        self,
        client: Client,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        request_timeout: float,
        on_status: StatusListener,
    ) -> mcp_types.CallToolResult:
        """Run ``tool`` as a task until it ends. Cancelling this (Stop, the call's timeout) cancels
        the task on the server too, without waiting for its answer."""
        params = mcp_types.CallToolRequestParams(
            name=tool, arguments=dict(arguments), task=mcp_types.TaskMetadata(ttl=TASK_TTL_MS)
        )
        raw = await client.session._dispatcher.send_raw_request(  # the SDK has no public way (module doc)
            "tools/call",
            params.model_dump(by_alias=True, mode="json", exclude_none=True),
            {"timeout": request_timeout},
        )
        if "task" not in raw:  # the server ran it at once after all
            return mcp_types.CallToolResult.model_validate(raw, by_name=False)
        task = mcp_types.CreateTaskResult.model_validate(raw, by_name=False).task
        try:
            return await self._follow(client, task, tool, request_timeout, on_status)
        except asyncio.CancelledError:
            self._cancel_later(client, task.task_id, tool, request_timeout)
            raise

    async def _follow(
        self,
        client: Client,
        task: mcp_types.Task,
        tool: str,
        request_timeout: float,
        on_status: StatusListener,
    ) -> mcp_types.CallToolResult:
        on_status(task.status, task.status_message)
        # input_required: the server's questions (an elicitation) come while tasks/result waits.
        while task.status not in TERMINAL and task.status != "input_required":
            await asyncio.sleep(poll_seconds(task.poll_interval))
            task = await client.session.send_request(
                mcp_types.GetTaskRequest(params=mcp_types.GetTaskRequestParams(task_id=task.task_id)),
                mcp_types.GetTaskResult,
                request_read_timeout_seconds=request_timeout,
            )
            on_status(task.status, task.status_message)
        if task.status == "cancelled":
            why = f": {task.status_message}" if task.status_message else ""
            return _error_result(f"The task running {tool} was cancelled by the server{why}.")
        # A failed task's result is the tool's error result (or the request fails with the error).
        result = await client.session.send_request(
            mcp_types.GetTaskPayloadRequest(
                params=mcp_types.GetTaskPayloadRequestParams(task_id=task.task_id)
            ),
            mcp_types.CallToolResult,
            request_read_timeout_seconds=request_timeout,
        )
        if task.status != "completed":
            on_status("completed" if not result.is_error else "failed", None)
        return result

    def _cancel_later(self, client: Client, task_id: str, tool: str, timeout: float) -> None:
        async def send() -> None:
            try:
                async with asyncio.timeout(timeout):
                    answer = await client.session.send_request(
                        mcp_types.CancelTaskRequest(
                            params=mcp_types.CancelTaskRequestParams(task_id=task_id)
                        ),
                        mcp_types.CancelTaskResult,
                    )
            except SERVER_ERRORS as error:
                self._log(f"(ContextDesk) cancelling the task of {tool} ({task_id}) failed: {error}")
                return
            self._log(
                f"(ContextDesk) cancelled the task of {tool} ({task_id}); the server says {answer.status}"
            )

        sending = asyncio.create_task(send(), name=f"cancel-task-{task_id}")
        self._cancelling.add(sending)
        sending.add_done_callback(self._cancelling.discard)


def _error_result(text: str) -> mcp_types.CallToolResult:
    return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=text)], is_error=True)
