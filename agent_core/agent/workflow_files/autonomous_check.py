"""``workflow check`` for CodeMie's Autonomous mode: a supervisor delegating to the workflow's
assistants, with no states. What does not map is reported: states and tools (not run in this
mode), assistant ids that cannot be the supervisor's tool names, assistants' own MCP servers (not
started in this mode), CodeMie tool names that name no ``server.tool`` of this agent, and a missing
``supervisor_prompt``."""

from __future__ import annotations

import re
from typing import Protocol

from agent_core.agent.workflow_files.loader import Workflow

__all__ = ["TOOL_NAME", "AddProblem", "autonomous_problems"]

#: What an assistant id must look like to be the supervisor's tool for it.
TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class AddProblem(Protocol):
    def __call__(self, message: str, fix: str, *where: str | int, severity: str = "error") -> None: ...


def autonomous_problems(workflow: Workflow, add: AddProblem) -> None:
    """Report, through ``add``, what of an Autonomous workflow ContextDesk does not run."""
    spec = workflow.spec
    if spec.states:
        add(
            "states are not run in Autonomous mode: the supervisor decides which assistant works next",
            "remove states, or remove mode: Autonomous to run the states in order",
            "states",
            severity="warning",
        )
    if spec.tools:
        add(
            "tools are not run in Autonomous mode: the supervisor delegates only to assistants",
            "give the tool to an assistant instead (its tools: [{name: server.tool}])",
            "tools",
            severity="warning",
        )
    if not (spec.supervisor_prompt or "").strip():
        add(
            "no supervisor_prompt: the supervisor gets only ContextDesk's own instructions",
            "write supervisor_prompt: how to split the task and in which order to use the assistants",
            "mode",
            severity="warning",
        )
    seen: set[str] = set()
    for i, assistant in enumerate(spec.assistants):
        if not TOOL_NAME.match(assistant.id):
            add(
                f"assistant '{assistant.id}' cannot be delegated to: its id is the supervisor's tool "
                "name, which is letters, digits, '_' and '-' (at most 64)",
                "rename it, e.g. " + (re.sub(r"[^A-Za-z0-9_-]+", "_", assistant.id)[:64] or "assistant"),
                "assistants", i, "id",
            )  # fmt: skip
        if assistant.id.lower() in seen:
            add(
                f"two assistants have the id '{assistant.id}'",
                "give each assistant its own id",
                "assistants", i, "id",
            )  # fmt: skip
        seen.add(assistant.id.lower())
        if assistant.mcp_servers:
            add(
                f"assistant '{assistant.id}': mcp_servers are not started in Autonomous mode",
                "add the server to agent.yaml and give its tools to the assistant (tools: [{name: server.tool}])",
                "assistants", i, "mcp_servers",
                severity="warning",
            )  # fmt: skip
        for j, entry in enumerate(assistant.tools):
            name = entry.get("name") or entry.get("tool")
            if isinstance(name, str) and "." not in name:
                add(
                    f"assistant '{assistant.id}': the tool '{name}' is a CodeMie tool name, not a "
                    "server.tool of this agent, so it gives the assistant no tool",
                    "name one of this agent's MCP tools (`contextdesk agent show` lists them), e.g. "
                    "workspace.read_file, or remove it",
                    "assistants", i, "tools", j,
                    severity="warning",
                )  # fmt: skip
