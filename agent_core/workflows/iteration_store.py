"""The context store in an iteration (``iter_key``): the items it runs over, the store each item
sees, and how what the items wrote is merged back, in the items' order and by the state's
``merge`` rule, so that items never overwrite each other unseen."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_core.workflows.errors import WorkflowError
from agent_core.workflows.records import HistoryMessage, StepRecord
from agent_core.workflows.schema import WorkflowState

__all__ = ["ItemWrites", "items_of", "merge_items", "new_keys", "scoped"]


def items_of(state: WorkflowState, store: Mapping[str, Any]) -> list[Any]:
    """The list ``state``'s ``iter_key`` names in the store (a dotted path).

    Raises:
        WorkflowError: the key is not in the store, or holds no list.
    """
    key = state.next.iter_key or ""
    items = _lookup(store, key)
    if not isinstance(items, list):
        raise WorkflowError(
            f"state '{state.id}': iter_key '{key}' is not a list in the store ({type(items).__name__})"
        )
    return items


def scoped(store: Mapping[str, Any], item: Any) -> dict[str, Any]:
    """The store one iteration sees: a dict item's keys, and the item itself as ``item``."""
    return {**store, **(item if isinstance(item, dict) else {}), "item": item}


def new_keys(seen: Mapping[str, Any], step: StepRecord) -> dict[str, Any]:
    """What one iteration wrote: keys it added or changed (the item's own keys excluded);
    ``seen`` is the store it started from (``scoped``)."""
    return {k: v for k, v in step.store_after.items() if k != "item" and (k not in seen or seen[k] != v)}


class ItemWrites:
    """What the items of one iteration wrote, merged by the state's ``merge`` rule: ``append``
    collects each key's values into a list; ``last`` (the default) keeps the last item's;
    ``error`` refuses two items writing one key, so items never overwrite each other unseen."""

    def __init__(self, target: WorkflowState) -> None:
        self.target = target
        self.collected: dict[str, list[Any]] = {}

    def add(self, store: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
        """``store`` with one more item's writes ``new`` merged in.

        Raises:
            WorkflowError: ``merge: error`` and a key an earlier item wrote.
        """
        if self.target.merge == "error" and (clash := [k for k in new if k in self.collected]):
            raise WorkflowError(
                f"state '{self.target.id}': two items wrote {', '.join(clash)} (merge: error)"
            )
        for k, v in new.items():
            self.collected.setdefault(k, []).append(v)
        if self.target.merge == "append":
            return {**store, **{k: list(v) for k, v in self.collected.items()}}
        return {**store, **new}


def merge_items(
    target: WorkflowState,
    store: dict[str, Any],
    history: tuple[HistoryMessage, ...],
    results: Sequence[tuple[Any, StepRecord]],
) -> tuple[dict[str, Any], tuple[HistoryMessage, ...]]:
    """What items that ran side by side wrote, in the items' order (not the order they finished),
    each having started from ``store`` and ``history``; each item's history is appended.

    Raises:
        WorkflowError: ``merge: error`` and two items wrote one key.
    """
    writes = ItemWrites(target)
    merged_store = dict(store)
    new_history = history
    for item, step in results:
        merged_store = writes.add(merged_store, new_keys(scoped(store, item), step))
        new_history = (*new_history, *step.history_after[len(history) :])
    return merged_store, new_history


def _lookup(store: Mapping[str, Any], path: str) -> Any:
    value: Any = store
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            raise WorkflowError(
                f"'{path}' is not in the context store (it holds: {', '.join(sorted(store)) or 'nothing'})"
            )
        value = value[part]
    return value
