"""Whether a state's output is what the workflow asked for, before the run goes on with it.

Two outputs look like work yet are not the work asked for: one that could only be read by
*repairing* it into JSON (a weak model's prose turned into some object, such as ``{type, data}``
where the next state reads ``points``), and an assistant state answered by a routed tool whose
result stands in for the model's text. Either marks the step ``needs_review`` and stops the run,
so that a run never says "finished" on them; a state with ``accept_unchecked_output: true``
goes on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from agent_core.agent.workflow_files.check import END
from agent_core.agent.workflow_files.schema import WorkflowState
from agent_core.agent.workflow_files.templates import WorkflowTemplateError, variables_of
from agent_core.context.provenance import Provenance
from agent_core.workflows.errors import WorkflowError

__all__ = ["NeedsReview", "following_states", "review_problem"]

_SHOWN = 120  # characters of the output quoted in the message


class NeedsReview(WorkflowError):
    """A state's output is not what was asked for (repaired, or a tool's in the model's place);
    the run stops there, not as finished."""


def review_problem(
    state: WorkflowState,
    *,
    parse_path: str,
    value: Any,
    provenance: Provenance | None,
    following: Iterable[WorkflowState],
    store: Mapping[str, Any],
) -> str | None:
    """Why the run must not go on with ``state``'s output (None when it may): what was expected,
    what came, and the fix. ``following``: the states that read it next; ``store``: the store
    the output made."""
    if state.accept_unchecked_output:
        return None
    opt_out = f"or set accept_unchecked_output: true on state '{state.id}' to go on with such output"
    expected = _expected(state, following, store)
    if provenance is not None and provenance.produced_by == "tool_result" and not state.tool_id:
        tool = provenance.answering_tool
        name = tool.label() if tool is not None else "a tool"
        return (
            f"state '{state.id}' needs review: it expected the model's answer{expected}, but {name} "
            "answered instead (ContextDesk routed the task to it, and its result was kept as the "
            "output). Run it with a model that can choose tools and write the answer, or give the "
            f"state's assistant no tools, {opt_out}"
        )
    if parse_path == "repaired":
        return (
            f"state '{state.id}' needs review: it expected JSON{expected}, but the answer was not "
            f"JSON and could only be read by repairing it into {_shape(value)}. Run it with a model "
            "that follows JSON schemas (and give the state an output_schema), or edit the state "
            f"(ask for plain text stored under an output_key), {opt_out}"
        )
    return None


def _expected(state: WorkflowState, following: Iterable[WorkflowState], store: Mapping[str, Any]) -> str:
    """ " with points, read by state 'draft'": the keys the next states read that the output did
    not store (or the state's output_schema); empty when nothing more is known."""
    if state.output_schema is not None:
        return " matching its output_schema"
    missing: dict[str, str] = {}
    for after in following:
        for name in sorted(_reads(after) - set(store)):
            missing.setdefault(name, after.id)
    if not missing:
        return ""
    keys = ", ".join(missing)
    readers = ", ".join(f"'{s}'" for s in dict.fromkeys(missing.values()))
    return f" with {keys}, read by state {readers}"


def _reads(state: WorkflowState) -> set[str]:
    """The store keys a state's task and tool arguments read."""
    texts = [state.task] if state.resolve_dynamic_values_in_prompt else []
    texts += [v for v in (state.tool_args or {}).values() if isinstance(v, str)]
    found: set[str] = set()
    for text in texts:
        try:
            found |= variables_of(text)
        except WorkflowTemplateError:
            continue  # the static check reports it; here it only names what was expected
    return found - {"item"}


def _shape(value: Any) -> str:
    """``an object with keys type, data ({"type": ...})``: what the repair made."""
    shown = json.dumps(value, ensure_ascii=False, default=str)
    if len(shown) > _SHOWN:
        shown = shown[: _SHOWN - 1] + "…"
    if isinstance(value, dict):
        return f"an object with keys {', '.join(map(str, value)) or '(none)'} ({shown})"
    if isinstance(value, list):
        return f"a list of {len(value)} item(s) ({shown})"
    return shown


def following_states(states: Mapping[str, WorkflowState], names: Iterable[str]) -> list[WorkflowState]:
    """The states named (``end`` is none)."""
    return [states[name] for name in names if name != END and name in states]
