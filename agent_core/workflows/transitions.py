"""Where a state goes next: its one next state, its branches, or the state a condition or a
switch picks from the context store."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_core.workflows.schema import WorkflowState
from agent_core.workflows.templates import condition

__all__ = ["next_states"]


def next_states(state: WorkflowState, store: Mapping[str, Any]) -> list[str]:
    """The ids of the states after ``state`` (several for ``state_ids``: each branch in turn).

    Raises:
        WorkflowTemplateError: a condition does not evaluate.
    """
    next_ = state.next
    where = f"state '{state.id}', next"
    if next_.state_id is not None:
        return [next_.state_id]
    if next_.state_ids is not None:
        return list(next_.state_ids)
    if next_.condition is not None:
        ok = condition(next_.condition.expression, store, where=where)
        return [next_.condition.then if ok else next_.condition.otherwise]
    assert next_.switch is not None
    for case in next_.switch.cases:
        if condition(case.condition, store, where=where):
            return [case.state_id]
    return [next_.switch.default]
