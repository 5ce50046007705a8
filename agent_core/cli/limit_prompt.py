"""Before a sub-agent, a workflow or ``/compact`` runs on a model that cannot do it reliably: the
warning line, then run anyway (``--yes``, or yes at the terminal) or stop so another model can be
picked. Without a terminal and without ``--yes`` nothing runs (the safe choice)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

from agent_core.chat.resolved_model import ProviderResolver
from agent_core.cli.input_prompt import ask_yes
from agent_core.providers.limit_warning import TaskKind, model_limit_warning
from agent_core.workflows.model_check import workflow_warning

if TYPE_CHECKING:
    from agent_core.agent.workflow_files.loader import Workflow
    from agent_core.workspace import Workspace

__all__ = ["PICK_ANOTHER", "confirm_model", "confirm_workflow"]

PICK_ANOTHER = {
    "subagent": "the sub-agent file's model: (or agent.yaml's chat.model)",
    "workflow": "an assistant's model: in the workflow file (or agent.yaml's chat.model)",
    "compaction": "agent.yaml's chat.model",
}


async def confirm_model(
    resolve: ProviderResolver, model_ref: str, task: TaskKind, *, yes: bool, err: TextIO | None = None
) -> bool:
    """Whether ``task`` may run on ``model_ref``: True when the model can do it, the user said yes
    or passed ``--yes``; otherwise False after saying how to pick another model.

    Raises:
        ProviderError: the model cannot be resolved (not configured).
    """
    provider, model_id = resolve(model_ref)
    warning = await model_limit_warning(provider, model_id, model_ref, task)
    return _run_anyway(warning, task, yes=yes, err=err or sys.stderr)


async def confirm_workflow(
    workspace: Workspace, workflow: Workflow, *, yes: bool, err: TextIO | None = None
) -> bool:
    """``confirm_model`` for every model the workflow's states may run on."""
    agent = workspace.agent
    warning = await workflow_warning(workspace.providers.resolve, workflow, agent, agent.config.chat.model)
    return _run_anyway(warning, "workflow", yes=yes, err=err or sys.stderr)


def _run_anyway(warning: str | None, task: TaskKind, *, yes: bool, err: TextIO) -> bool:
    if warning is None:
        return True
    print(f"contextdesk: {warning}", file=err)
    if yes or ask_yes("Run anyway? [y/N] ", err):
        return True
    print(
        f"contextdesk: not run. Pick another model with {PICK_ANOTHER[task]}, or pass --yes to run anyway.",
        file=err,
    )
    return False
