"""Calling a server's tool: plainly or as a protocol task, with its progress reported to whoever
listens, and the answer checked and turned into a ``ToolResult``."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Mapping
from typing import Any

import mcp_types
from mcp import Client

from agent_core.mcp._content import content_part
from agent_core.mcp._requests import Requests
from agent_core.mcp._structured import checked_problem, structured_text
from agent_core.mcp._tasks import runs_as_task
from agent_core.mcp.errors import McpServerError
from agent_core.mcp.types import ToolResult
from agent_core.tools.progress import current_progress_listener, progress_report, task_report
from agent_core.tools.runtime import call_ended

__all__ = ["ToolCalls"]


class ToolCalls(Requests):
    """One tool call on the server; every failure comes back as an error result."""

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
            return result(str(error), True, ended=call_ended(error))
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
        ui_uri = listed.ui.resource_uri if listed is not None and listed.ui is not None else None
        return result(
            text,
            is_error,
            structured=structured,
            content=parts,
            structured_problem=problem,
            ui_resource_uri=ui_uri,
        )
