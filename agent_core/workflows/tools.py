"""Workflows as tools of a chat (one per workflow, ``workflows.NAME``), so that selection, routing
and View Context treat them like any tool; the chat runs their calls (``chat_runs``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_core.agent.schema import IncludeMode
from agent_core.agent.workflow_files.loader import Workflow
from agent_core.tools.runtime import ToolDescriptor, ToolOutcome, ToolRuntime

__all__ = ["WORKFLOW_SERVER", "WithWorkflows", "WorkflowTool", "input_schema_of", "workflow_tools"]

#: The server name workflow tools appear under (``workflows.triage``).
WORKFLOW_SERVER = "workflows"

#: The argument a workflow without declared inputs takes: its input, JSON or text.
FREE_INPUT = "input"


def input_schema_of(workflow: Workflow) -> dict[str, Any]:
    """The tool's parameters: the declared inputs with their types, or one free-form input."""
    inputs = workflow.spec.inputs
    if not inputs:
        return {
            "type": "object",
            "properties": {
                FREE_INPUT: {
                    "type": "string",
                    "description": "What to run the workflow on: a JSON object (its keys seed the "
                    "workflow's context) or plain text.",
                }
            },
            "additionalProperties": False,
        }
    properties = {
        name: {"type": given.type, **({"description": given.description} if given.description else {})}
        for name, given in inputs.items()
    }
    required = [name for name, given in inputs.items() if given.required and given.default is None]
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def given_of(workflow: Workflow, arguments: Mapping[str, Any]) -> Any:
    """The workflow's input from a tool call's arguments."""
    if not workflow.spec.inputs and set(arguments) <= {FREE_INPUT}:
        return arguments.get(FREE_INPUT, "")
    return dict(arguments)


@dataclass(frozen=True)
class WorkflowTool:
    """The tool a chat's model calls to run one workflow (a ToolDescriptor)."""

    workflow: Workflow
    server: str = WORKFLOW_SERVER
    # Starting it asks nothing; its states ask as the chat would (approve: true, tools' policy).
    permission_required: bool = False

    @property
    def name(self) -> str:
        return self.workflow.name

    @property
    def include(self) -> IncludeMode:
        return IncludeMode(self.workflow.spec.include)

    @property
    def description(self) -> str:
        spec = self.workflow.spec
        if spec.autonomous:
            shape = "a supervisor delegating to " + ", ".join(a.id for a in spec.assistants)
        else:
            shape = f"{len(spec.states)} steps: " + ", ".join(s.id for s in spec.states)
        about = spec.description.strip() or shape
        return f"Run the workflow '{self.workflow.name}': {about}"

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return input_schema_of(self.workflow)


def workflow_tools(workflows: Mapping[str, Workflow]) -> list[WorkflowTool]:
    return [WorkflowTool(workflow) for workflow in workflows.values()]


@dataclass(frozen=True)
class WithWorkflows:
    """A chat's tools plus one tool per workflow of its agent (read at each call: the agent can be
    reloaded). Those tools run through the chat, never through here."""

    inner: ToolRuntime
    agent_workflows: Callable[[], Mapping[str, Workflow]]

    def tools(self) -> Sequence[ToolDescriptor]:
        return [*self.inner.tools(), *workflow_tools(self.agent_workflows())]

    async def call_tool(self, server: str, tool: str, arguments: Mapping[str, Any]) -> ToolOutcome:
        if server == WORKFLOW_SERVER:
            raise LookupError(f"the workflow {tool} runs through a chat, not as a plain tool")
        return await self.inner.call_tool(server, tool, arguments)
