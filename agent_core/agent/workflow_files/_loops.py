"""Loops a run can enter and never leave: states the first state reaches, from which no path
leads to ``end``. A run that gets there goes round until ``limits.maxSteps`` stops it."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence

from agent_core.agent.workflow_files.schema import WorkflowNext, WorkflowState

__all__ = ["endless_loops"]


def endless_loops(
    order: Sequence[WorkflowState], targets: Callable[[WorkflowNext], list[str]], end: str
) -> list[str]:
    """The states (in file order) of the loops a run can enter but never get to ``end`` from
    (states that only lead into such a loop are left out). A target that is not a state counts
    as an exit: it is reported as an error of its own."""
    states = {state.id: state for state in order}
    leads_to: dict[str, list[str]] = {state.id: [] for state in order}
    finishing: list[str] = []
    for state in order:
        for target in targets(state.next):
            if target in states:
                leads_to[target].append(state.id)
            else:
                finishing.append(state.id)  # end, or a state that does not exist
    can_end = _reached(finishing, leads_to)
    forward = {state.id: [t for t in targets(state.next) if t in states] for state in order}
    reached = _reached([order[0].id], forward) if order else set()
    stuck = {state.id for state in order if state.id in reached and state.id not in can_end}
    # Every stuck state leads into a loop of stuck states: those are the ones to name.
    within = {state_id: [t for t in forward[state_id] if t in stuck] for state_id in stuck}
    return [s.id for s in order if s.id in stuck and s.id in _reached(within[s.id], within)]


def _reached(start: Iterable[str], edges: Mapping[str, list[str]]) -> set[str]:
    seen = set(start)
    queue = deque(seen)
    while queue:
        for other in edges[queue.popleft()]:
            if other not in seen:
                seen.add(other)
                queue.append(other)
    return seen
