"""A run's input: the store before its first state, checked against the workflow's ``inputs``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agent_core.agent.workflow_files.schema import WorkflowInput
from agent_core.workflows.errors import WorkflowError
from agent_core.workflows.parsing import parse_output

__all__ = ["initial_store"]

_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}


def initial_store(given: Any, inputs: Mapping[str, WorkflowInput]) -> dict[str, Any]:
    """The store before the first state: a JSON (or dict) input's root keys, checked against the
    declared ``inputs`` (defaults applied); plain text is the value of the one required text
    input, when the workflow has exactly one.

    Raises:
        WorkflowError: a required input is missing or has the wrong type.
    """
    value = parse_output(given).value if isinstance(given, str) else given
    store: dict[str, Any] = dict(value) if isinstance(value, dict) else {}
    if isinstance(given, str) and not isinstance(value, dict) and given.strip():
        # "/run release-notes Bluefin 0.9.2": plain text is the one text input the workflow needs.
        needed = [name for name, d in inputs.items() if d.required and d.default is None]
        if len(needed) == 1 and inputs[needed[0]].type == "string":
            store[needed[0]] = given.strip()
    for name, declared in inputs.items():
        if name not in store:
            if declared.default is not None or not declared.required:
                store[name] = declared.default
                continue
            raise WorkflowError(
                f"the input '{name}' is required: give it in the JSON input ({{\"{name}\": …}})"
            )
        if not _TYPES[declared.type](store[name]):
            raise WorkflowError(
                f"the input '{name}' must be {declared.type}, not {type(store[name]).__name__}"
            )
    return store
