"""A dry run (``workflow run --dry-run``): every state's task and tool arguments rendered from
the input alone, without running anything."""

from __future__ import annotations

from typing import Any

from agent_core.agent.workflow_files.loader import Workflow
from agent_core.agent.workflow_files.templates import render, render_all
from agent_core.workflows.errors import WorkflowError
from agent_core.workflows.inputs import initial_store

__all__ = ["dry_run"]


def dry_run(workflow: Workflow, given: Any) -> list[tuple[str, str, Any]]:
    """(state id, task, arguments) of every state, rendered from the input; what a later state
    stores shows as ``{{name}}``.

    Raises:
        WorkflowError: the input does not match the declared inputs, or the workflow is
            Autonomous (no states).
        WorkflowTemplateError: a template does not parse or is refused.
    """
    if workflow.spec.autonomous:
        raise WorkflowError(
            f"workflow {workflow.name} is Autonomous: it has no states to render, its supervisor writes "
            "each task as it runs; try it with --mock-outputs instead"
        )
    store = initial_store(given, workflow.spec.inputs)
    rendered = []
    tools = {t.id: t for t in workflow.spec.tools}
    for state in workflow.spec.states:
        where = f"state '{state.id}'"
        task = render(state.task, store, where=f"{where}, task", undefined="keep")
        args = None
        if state.tool_id and state.tool_id in tools:
            merged = {**(tools[state.tool_id].tool_args or {}), **(state.tool_args or {})}
            args = render_all(merged, store, where=f"{where}, tool_args", undefined="keep")
        rendered.append((state.id, task, args))
    return rendered
