"""Sub-agents as tools of the parent (one per sub-agent, so selection and routing treat them like
any tool), and the narrowed tool set a child gets (its allow-list, ``disallowedTools`` winning)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_core.agent.agent import Agent
from agent_core.agent.schema import IncludeMode
from agent_core.agent.subagent_files.definition import Subagent, tool_allowed
from agent_core.tools.runtime import ToolDescriptor, ToolOutcome, ToolRuntime
from agent_core.workflows.tools import WORKFLOW_SERVER

__all__ = ["SUBAGENT_SERVER", "AllowListedTools", "SubagentTool", "WithSubagents", "subagent_tools"]

#: The server name sub-agent tools appear under (``subagents.researcher``).
SUBAGENT_SERVER = "subagents"

TASK_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "task": {
            "type": "string",
            "description": "The whole task, self-contained: the sub-agent sees nothing else of this chat.",
        }
    },
    "required": ["task"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class SubagentTool:
    """The tool a parent calls to delegate to one sub-agent (a ToolDescriptor)."""

    subagent: Subagent
    server: str = SUBAGENT_SERVER
    input_schema: Mapping[str, Any] = field(default_factory=lambda: TASK_SCHEMA)
    # Delegating asks nothing; the child's own tool calls ask as their policy says.
    permission_required: bool = False

    @property
    def name(self) -> str:
        return self.subagent.tool_name

    @property
    def include(self) -> IncludeMode:
        """As the file says: by default chosen per message from its description, like any
        agent-mode tool."""
        return self.subagent.include

    @property
    def description(self) -> str:
        return f"Delegate to the sub-agent '{self.subagent.name}': {self.subagent.description}"


def subagent_tools(subagents: Mapping[str, Subagent]) -> list[SubagentTool]:
    return [SubagentTool(subagent) for subagent in subagents.values()]


@dataclass(frozen=True)
class WithSubagents:
    """A chat's tools plus one tool per sub-agent of its agent (read at each call: the agent can
    be reloaded). Those tools run through the chat (``Delegator``), never through here."""

    inner: ToolRuntime
    agent: Callable[[], Agent]

    def tools(self) -> Sequence[ToolDescriptor]:
        return [*self.inner.tools(), *subagent_tools(self.agent().subagents)]

    async def call_tool(self, server: str, tool: str, arguments: Mapping[str, Any]) -> ToolOutcome:
        if server == SUBAGENT_SERVER:
            raise LookupError(f"the sub-agent {tool} runs through a chat, not as a plain tool")
        return await self.inner.call_tool(server, tool, arguments)


@dataclass(frozen=True)
class AllowListedTools:
    """The parent's tools as one child may see and call them: only allow-listed ones, plus the
    sub-agent tools it may nest into. A call outside the list fails closed."""

    inner: ToolRuntime
    subagent: Subagent
    nested: Sequence[SubagentTool] = ()

    def tools(self) -> Sequence[ToolDescriptor]:
        allowed: list[ToolDescriptor] = [
            t
            for t in self.inner.tools()
            # A child runs no workflow: a workflow's assistants are themselves children.
            if t.server not in (SUBAGENT_SERVER, WORKFLOW_SERVER)
            and tool_allowed(self.subagent, t.server, t.name)
        ]
        return [*allowed, *self.nested]

    async def call_tool(self, server: str, tool: str, arguments: Mapping[str, Any]) -> ToolOutcome:
        if server in (SUBAGENT_SERVER, WORKFLOW_SERVER) or not tool_allowed(self.subagent, server, tool):
            raise LookupError(
                f"{server}.{tool} is not among the tools of the sub-agent '{self.subagent.name}' "
                "(its tools and disallowedTools)"
            )
        return await self.inner.call_tool(server, tool, arguments)
