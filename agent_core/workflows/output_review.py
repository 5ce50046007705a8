"""Whether a state's output is what the workflow asked for, before the run goes on with it.

Four outputs look like work yet are not the work asked for: one that could only be read by
*repairing* it into JSON (a weak model's prose turned into some object); one that lacks what the
next state reads (``{type, data}`` where the next state reads ``points``); an assistant state's
answer that a routed tool gave in the model's place; and an answer that says the state's own
prompt back (the workflow's history it was framed in). Each marks the step
``needs_review`` and stops the run there, so that a run never says "finished" on them; a state
with ``accept_unchecked_output: true`` goes on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from agent_core.agent.workflow_files.check import END
from agent_core.agent.workflow_files.schema import WorkflowState
from agent_core.agent.workflow_files.templates import (
    UndefinedMode,
    WorkflowTemplateError,
    render,
    variables_of,
)
from agent_core.context.provenance import Provenance
from agent_core.workflows.errors import WorkflowError

__all__ = ["HISTORY_FRAME", "HISTORY_TAGS", "NeedsReview", "following_states", "review_problem"]

_SHOWN = 120  # characters of the output quoted in the message
# How a state's prompt frames the workflow's history (assistant_state.py): the tags around it and
# the line that opens it. An answer that holds either is the prompt said back, which a small model
# does; it may drop the tags and keep the line ("The workflow so far, for reference: 1. Owls…").
HISTORY_TAGS = ("<history>", "</history>")
HISTORY_FRAME = "The workflow so far, for reference:"


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
    undefined: UndefinedMode = "error",
) -> str | None:
    """Why the run must not go on with ``state``'s output (None when it may): what was expected,
    what came, and the fix. ``following``: the states that run next; ``store``: the store the
    output made; ``undefined``: the workflow's mode (``keep`` renders a missing key as text)."""
    if state.accept_unchecked_output:
        return None
    opt_out = f"or set accept_unchecked_output: true on state '{state.id}' to go on with such output"
    if provenance is not None and provenance.produced_by == "tool_result" and not state.tool_id:
        tool = provenance.answering_tool
        name = tool.label() if tool is not None else "a tool"
        return (
            f"state '{state.id}' needs review: it expected the model's answer, but {name} answered "
            "instead (ContextDesk routed the task to it, and its result was kept as the output). Run "
            "it with a model that can choose tools, or reword the task so that no tool matches it, "
            f"{opt_out}"
        )
    if isinstance(value, str) and any(mark in value for mark in (*HISTORY_TAGS, HISTORY_FRAME)):
        return (
            f"state '{state.id}' needs review: its answer repeats the prompt it was given (the "
            "workflow's history, framed for reference) instead of doing its task. Run it with a "
            f"larger model, or give it less history (clear_prior_messages), {opt_out}"
        )
    missing = {} if undefined == "keep" or state.next.iter_key else _missing(following, store)
    expected = _expected(state, missing)
    if parse_path == "repaired":
        edit = "edit the state" if state.next.output_key else "ask for plain text stored under an output_key"
        return (
            f"state '{state.id}' needs review: it expected {expected}, but the answer was not JSON "
            f"and could only be read by repairing it into {_shape(value)}. Run it with a model that "
            f"follows JSON schemas (and give the state an output_schema), or {edit}, {opt_out}"
        )
    if missing:
        return (
            f"state '{state.id}' needs review: it expected {expected}, but its output was "
            f"{_shape(value)}. Run it with a model that follows JSON schemas (and give the state an "
            f"output_schema that requires {', '.join(missing)}), or edit the state, {opt_out}"
        )
    return None


def _missing(following: Iterable[WorkflowState], store: Mapping[str, Any]) -> dict[str, str]:
    """The keys the next states read that ``store`` lacks, each with the first state reading it;
    only where rendering that state would really fail (a ``{% if x is defined %}`` is fine)."""
    missing: dict[str, str] = {}
    for after in following:
        lacking = sorted(_reads(after) - set(store))
        if lacking and _fails(after, store):
            for name in lacking:
                missing.setdefault(name, after.id)
    return missing


def _fails(state: WorkflowState, store: Mapping[str, Any]) -> bool:
    texts = [state.task] if state.resolve_dynamic_values_in_prompt else []
    texts += [v for v in (state.tool_args or {}).values() if isinstance(v, str)]
    try:
        for text in texts:
            render(text, store, where=f"state '{state.id}'")
    except WorkflowTemplateError:
        return True
    return False


def _expected(state: WorkflowState, missing: Mapping[str, str]) -> str:
    """What the state had to give: JSON matching its schema, the keys the next states read (e.g.
    "output with points, read by state 'draft'"), text for its output_key, or JSON."""
    if state.output_schema is not None:
        return "JSON matching its output_schema"
    if missing:
        readers = ", ".join(f"'{s}'" for s in dict.fromkeys(missing.values()))
        return f"output with {', '.join(missing)}, read by state {readers}"
    if state.next.output_key:
        return f"text to store as {state.next.output_key}"
    return "JSON"


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
    """``an object with keys type, data ({"type": ...})``: what the output was read as."""
    shown = json.dumps(value, ensure_ascii=False, default=str)
    if len(shown) > _SHOWN:
        shown = shown[: _SHOWN - 1] + "…"
    if isinstance(value, dict):
        return f"an object with keys {', '.join(map(str, value)) or '(none)'} ({shown})"
    if isinstance(value, list):
        return f"a list of {len(value)} item(s) ({shown})"
    return f"the text {shown}"


def following_states(states: Mapping[str, WorkflowState], names: Iterable[str]) -> list[WorkflowState]:
    """The states named (``end`` is none)."""
    return [states[name] for name in names if name != END and name in states]
