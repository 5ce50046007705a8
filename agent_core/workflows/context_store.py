"""The context store: what one state's output adds to it, and what a transition's flags clear.

As CodeMie documents it: a dict's root keys are stored (nested values kept whole); a list of dicts
is merged in order, the last value of a key winning; a plain string or a simple list is stored
only under ``output_key`` (which holds the whole output, a dict's keys being stored too);
``store_in_context: false`` stores nothing; ``clear_context_store`` ``true`` empties the store
(the new values too), ``"keep_current"`` keeps only the new values; ``reset_keys_in_context_store``
removes keys. Each change is reported with its token size.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["StoreChange", "Transition", "apply_output", "new_values", "size_of"]

ClearStore = bool | Literal["keep_current"]


@dataclass(frozen=True)
class Transition:
    """The context flags of a state's ``next``."""

    store_in_context: bool = True
    output_key: str | None = None
    clear_context_store: ClearStore = False
    reset_keys_in_context_store: Sequence[str] = ()


@dataclass(frozen=True)
class StoreChange:
    """What one state did to the store: keys added, changed and removed, with token sizes."""

    added: dict[str, int] = field(default_factory=dict)
    changed: dict[str, int] = field(default_factory=dict)
    removed: dict[str, int] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.removed)


def size_of(value: Any, count_tokens: Callable[[str], int] | None = None) -> int:
    """A value's size in tokens as it would be rendered (about 4 characters a token without a
    counter)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return count_tokens(text) if count_tokens is not None else max(1, (len(text) + 3) // 4)


def new_values(output: Any, raw: str, transition: Transition) -> dict[str, Any]:
    """What ``output`` (parsed from ``raw``) puts in the store, before any clearing."""
    if not transition.store_in_context:
        return {}
    values: dict[str, Any] = {}
    if isinstance(output, dict):
        values = {str(key): value for key, value in output.items()}
    elif isinstance(output, list) and output and all(isinstance(item, dict) for item in output):
        for item in output:
            values.update({str(key): value for key, value in item.items()})  # the last value wins
    # A plain string or a simple list is stored only through output_key. With output_key, the
    # whole output (the parsed data, or the text when it is not structured) is stored under it
    # as well, after the root keys, so it wins over a root key of the same name (CodeMie's
    # base node: _collect_new_values, then _add_output_key).
    if transition.output_key:
        values[transition.output_key] = raw if isinstance(output, str) else output
    return values


def apply_output(
    store: Mapping[str, Any],
    output: Any,
    raw: str,
    transition: Transition,
    count_tokens: Callable[[str], int] | None = None,
) -> tuple[dict[str, Any], StoreChange]:
    """The store after a state, and what changed in it."""
    new = new_values(output, raw, transition)
    if transition.clear_context_store is True:
        after: dict[str, Any] = {}
    elif transition.clear_context_store == "keep_current":
        after = dict(new)
    else:
        after = {**store, **new}
    for key in transition.reset_keys_in_context_store:
        after.pop(key, None)
    return after, diff(store, after, count_tokens)


def diff(
    before: Mapping[str, Any], after: Mapping[str, Any], count_tokens: Callable[[str], int] | None = None
) -> StoreChange:
    return StoreChange(
        added={k: size_of(v, count_tokens) for k, v in after.items() if k not in before},
        changed={k: size_of(v, count_tokens) for k, v in after.items() if k in before and before[k] != v},
        removed={k: size_of(v, count_tokens) for k, v in before.items() if k not in after},
    )
