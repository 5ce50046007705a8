"""Where an autonomous run starts: the input as the supervisor's task, then the supervisor's
chat (or, with mock outputs, its scripted decisions)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from agent_core.workflows.autonomous.mocked import mocked_walk
from agent_core.workflows.autonomous.steps import DelegationSteps
from agent_core.workflows.autonomous.supervisor import supervised_walk
from agent_core.workflows.records import HistoryMessage
from agent_core.workflows.workflow_run import WorkflowRun

__all__ = ["autonomous_walk"]


def autonomous_walk(run: WorkflowRun, given: Any, store: dict[str, Any]) -> AsyncIterator[Any]:
    """The run's events and (store, history) tuples; see ``supervisor`` and ``mocked``."""
    task = given if isinstance(given, str) else json.dumps(given, ensure_ascii=False)
    steps = DelegationSteps(run, store, (HistoryMessage("user", task),))
    if run.mock is not None:
        return mocked_walk(run, steps, [assistant.id for assistant in run.spec.assistants])
    return supervised_walk(run, steps, task)
