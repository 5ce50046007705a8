"""An assistant's own MCP servers (``assistants[].mcp_servers``), started for its states only.

With ``resolve_dynamic_values_in_arguments`` their arguments and environment are templates of the
context store, which model output fills: a rendered value is checked before it reaches a command
line. It may not turn into an option (``--…``) the file did not write, hold a NUL byte or a line
break, or run past a size cap. The command and folder are never templated.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from agent_core.agent.agent import Agent
from agent_core.agent.schema import StdioServerConfig, ToolDefaults
from agent_core.tools.runtime import ToolDescriptor, ToolOutcome, ToolRuntime
from agent_core.workflows.errors import WorkflowError
from agent_core.workflows.schema import WorkflowAssistantConfig, WorkflowMcpServer
from agent_core.workflows.server_trust import check_trusted
from agent_core.workflows.templates import UndefinedMode, render

__all__ = ["StateTools", "server_configs", "started_servers"]

#: The longest one rendered argument or environment value may be.
MAX_ARGUMENT_CHARS = 4_096


def server_configs(
    assistant: WorkflowAssistantConfig,
    agent: Agent,
    store: Mapping[str, Any],
    *,
    where: str,
    undefined: UndefinedMode,
) -> dict[str, StdioServerConfig]:
    """The servers to start for ``assistant``, their arguments filled from ``store`` as asked.

    Raises:
        WorkflowError: a server has no command to run, is not trusted, or a filled-in value is refused.
        WorkflowTemplateError: a template is undefined, unsafe or does not parse.
    """
    configs: dict[str, StdioServerConfig] = {}
    for entry in assistant.mcp_servers:
        check_trusted(assistant, entry, agent, where)  # as written, before values are filled in
        found = agent.config.mcp_servers.get(entry.name)
        base = found if isinstance(found, StdioServerConfig) else None
        command = entry.config.command
        if command is None:
            if base is None:
                raise WorkflowError(
                    f"{where}: the MCP server '{entry.name}' gives no command, and the agent has no "
                    "stdio server of that name; give config.command, or name one of agent.yaml's servers"
                )
            command = base.command
        args = list(entry.config.args if entry.config.args is not None else (base.args if base else []))
        env = {**(base.env if base else {}), **entry.config.env}
        if entry.resolve_dynamic_values_in_arguments:
            args = [_filled(entry, a, store, where, undefined) for a in args]
            env = {k: _filled(entry, v, store, where, undefined) for k, v in env.items()}
        configs[entry.name] = StdioServerConfig(
            command=command,
            args=args,
            env=env,
            cwd=base.cwd if base is not None and entry.config.command is None else None,
            tool_defaults=base.tool_defaults if base is not None else ToolDefaults(),
            tools=base.tools if base is not None else {},
        )
    return configs


def _filled(
    entry: WorkflowMcpServer, template: str, store: Mapping[str, Any], where: str, undefined: UndefinedMode
) -> str:
    value = render(template, store, where=f"{where}, MCP server '{entry.name}'", undefined=undefined)
    refused = ""
    if value.startswith("-") and not template.lstrip().startswith("-"):
        refused = f"it would become the option {value[:40]!r}"
    elif "\x00" in value or "\n" in value or "\r" in value:
        refused = "it holds a NUL byte or a line break"
    elif len(value) > MAX_ARGUMENT_CHARS:
        refused = f"it is longer than {MAX_ARGUMENT_CHARS:,} characters"
    if refused:
        raise WorkflowError(
            f"{where}: the value filled into {template!r} for the MCP server '{entry.name}' is refused: "
            f"{refused}. Check what the earlier state stored"
        )
    return value


@dataclass(frozen=True)
class StateTools:
    """The tools one assistant state offers: its own servers' beside (and over) the chat's."""

    inner: ToolRuntime
    own: ToolRuntime
    own_servers: frozenset[str]

    def tools(self) -> Sequence[ToolDescriptor]:
        kept = [t for t in self.inner.tools() if t.server not in self.own_servers]
        return [*kept, *self.own.tools()]

    async def call_tool(self, server: str, tool: str, arguments: Mapping[str, Any]) -> ToolOutcome:
        runtime = self.own if server in self.own_servers else self.inner
        return await runtime.call_tool(server, tool, arguments)


@asynccontextmanager
async def started_servers(configs: Mapping[str, StdioServerConfig], where: str) -> AsyncIterator[ToolRuntime]:
    """The servers of ``configs``, running while the block runs and stopped after it.

    Raises:
        WorkflowError: one did not start (with its reason).
    """
    from agent_core.mcp import McpManager
    from agent_core.mcp.types import ServerState

    manager = McpManager(configs)
    try:
        for status in await manager.start():
            if status.state is not ServerState.READY:
                raise WorkflowError(
                    f"{where}: the MCP server '{status.name}' did not start: {status.reason or status.state}"
                )
        yield manager
    finally:
        await manager.aclose()
