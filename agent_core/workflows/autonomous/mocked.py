"""An autonomous run answered by mock outputs (``--mock-outputs``, the desktop's "use mock
outputs"): the supervisor's decisions and the assistants' results are played in order, no model
runs. A decision is CodeMie's supervisor answer, ``{"next": ASSISTANT, "task": "...",
"reasoning": "..."}``, or ``{"next": "FINISH", "result": "..."}`` (``"FINISH"`` alone too)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from agent_core.workflows.autonomous.steps import FINISH, SUPERVISOR, DelegationSteps, mock_delegation
from agent_core.workflows.errors import WorkflowError
from agent_core.workflows.output_review import NeedsReview
from agent_core.workflows.workflow_run import WorkflowRun

__all__ = ["Decision", "decision_of", "mocked_walk"]

_DECISION = '{"next": "ASSISTANT_ID or FINISH", "task": "...", "reasoning": "..."}'


@dataclass(frozen=True)
class Decision:
    next: str  # an assistant's id, or FINISH
    task: str = ""
    result: str = ""  # with FINISH: the final answer


def decision_of(text: str, assistants: Sequence[str]) -> Decision:
    """The supervisor's decision a mock output holds.

    Raises:
        WorkflowError: it is not a decision, or names no assistant of the workflow.
    """
    if text.strip() == FINISH:
        return Decision(FINISH)
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    target = data.get("next") if isinstance(data, dict) else None
    if not isinstance(target, str):
        raise WorkflowError(
            f"the supervisor's mock output {text[:80]!r} is not a decision: write {_DECISION} for "
            f"state_id '{SUPERVISOR}'"
        )
    assert isinstance(data, dict)
    if target == FINISH:
        return Decision(FINISH, result=str(data.get("result") or ""))
    if target not in assistants:
        raise WorkflowError(
            f"the supervisor's mock decision names '{target}', which is not an assistant of the "
            f"workflow (its assistants: {', '.join(assistants)}, or FINISH)"
        )
    task = data.get("task")
    if not isinstance(task, str) or not task.strip():
        raise WorkflowError(f"the supervisor's mock decision for '{target}' gives no task: write {_DECISION}")
    return Decision(target, task.strip())


async def mocked_walk(
    run: WorkflowRun, steps: DelegationSteps, assistants: Sequence[str]
) -> AsyncIterator[Any]:
    """Steps as the mock outputs decide, then the final store; (store, history) tuples as they change.

    Raises:
        WorkflowError: the mock outputs do not fit (Stopped: a cap; NeedsReview: see ``steps``).
    """
    assert run.mock is not None
    number = 0
    while True:
        decision = decision_of(run.mock.next_for(SUPERVISOR), assistants)
        if decision.next == FINISH:
            problem = steps.finish(decision.result)
            yield (steps.store, steps.history)
            if problem:
                raise NeedsReview(problem)
            return
        steps.admit(decision.next)
        call_id = f"{run.run_id}-{number}"
        number += 1
        yield steps.started(call_id, decision.next)
        result = run.mock.next_for(decision.next)
        yield steps.finished(mock_delegation(call_id, decision.next, decision.task, result), kind="mock")
        yield (steps.store, steps.history)
        run.limits.stop_if_over()
