"""A run's input: the store before its first state, checked against the workflow's ``inputs``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agent_core.workflows.errors import WorkflowError
from agent_core.workflows.parsing import parse_output
from agent_core.workflows.schema import WorkflowInput

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
    declared ``inputs`` (defaults applied).

    Raises:
        WorkflowError: a required input is missing or has the wrong type.
    """
    value = parse_output(given).value if isinstance(given, str) else given
    store: dict[str, Any] = dict(value) if isinstance(value, dict) else {}
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
