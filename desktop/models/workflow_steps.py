"""The steps of one workflow run as a table, live (a row per StepStarted, filled in at its
StepFinished) or as stored; and one step's store changes as a table of their own."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from enum import IntEnum
from typing import Any, Literal

from PySide6.QtCore import QModelIndex, Qt

from agent_core.workflows.events import StepStarted
from agent_core.workflows.records import StepRecord
from desktop.models._table import RowTableModel

__all__ = [
    "StepColumn",
    "StepRow",
    "StoreChange",
    "StoreDiffColumn",
    "StoreDiffModel",
    "WorkflowStepsModel",
    "shown_value",
    "store_changes",
]

STEP_ROLE = Qt.ItemDataRole.UserRole + 1
RowStatus = Literal["running", "done", "failed", "refused", "dry_run", "cancelled", "needs_review"]


def shown_value(value: Any, limit: int | None = None) -> str:
    """A store value as the user reads it: strings as they are, the rest as JSON."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    if limit is not None and len(text) > limit:
        return text[: limit - 1] + "…"
    return text


@dataclass(frozen=True)
class StepRow:
    state_id: str
    item: Any
    status: RowStatus
    record: StepRecord | None = None  # None while the state runs


class StepColumn(IntEnum):
    STATE = 0
    ITEM = 1
    STATUS = 2
    PARSE = 3
    NEXT = 4
    TIME = 5
    TOKENS = 6


class WorkflowStepsModel(RowTableModel[StepRow]):
    HEADERS = ("State", "Item", "Status", "Parsed as", "Next", "Time", "Tokens")
    STEP_ROLE = STEP_ROLE

    def load(self, steps: tuple[StepRecord, ...] | list[StepRecord]) -> None:
        """A stored run's steps, replacing what is shown."""
        self._reset_rows(StepRow(s.state_id, s.item, s.status, s) for s in steps)

    def step_started(self, event: StepStarted) -> None:
        row = len(self._rows)
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.append(StepRow(event.state_id, event.item, "running"))
        self.endInsertRows()

    def step_finished(self, step: StepRecord) -> int:
        """Fill in the row of the state that was running (or add one); returns its row."""
        row = next(
            (
                i
                for i in range(len(self._rows) - 1, -1, -1)
                if self._rows[i].status == "running" and self._rows[i].state_id == step.state_id
            ),
            None,
        )
        finished = StepRow(step.state_id, step.item, step.status, step)
        if row is None:
            row = len(self._rows)
            self.beginInsertRows(QModelIndex(), row, row)
            self._rows.append(finished)
            self.endInsertRows()
        else:
            self._rows[row] = finished
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.HEADERS) - 1))
        return row

    def mark_stopped(self) -> None:
        """The run ended: a state still shown running was cancelled with it."""
        for row, entry in enumerate(self._rows):
            if entry.status == "running":
                self._rows[row] = replace(entry, status="cancelled")
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.HEADERS) - 1))

    def has_items(self) -> bool:
        """Whether any row is an iteration (a state run once per item)."""
        return any(row.item is not None for row in self._rows)

    def step_at(self, row: int) -> StepRecord | None:
        return self._rows[row].record if 0 <= row < len(self._rows) else None

    def row_at(self, row: int) -> StepRow | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def cell_data(self, row: StepRow, column: int, role: int) -> Any:
        record = row.record
        if role == Qt.ItemDataRole.DisplayRole:
            if column == StepColumn.STATE:
                return row.state_id
            if column == StepColumn.ITEM:
                return "" if row.item is None else shown_value(row.item, 40)
            if column == StepColumn.STATUS:
                return row.status
            if record is None:
                return ""
            if column == StepColumn.PARSE:
                return "delegated" if record.delegated else record.parse_path
            if column == StepColumn.NEXT:
                return record.next_state
            if column == StepColumn.TIME:
                return f"{record.elapsed_seconds:.2f} s"
            if column == StepColumn.TOKENS:
                usage = record.usage
                tokens = (usage.input_tokens or 0) + (usage.output_tokens or 0)
                return f"{tokens:,}" if tokens else "—"
        if role == Qt.ItemDataRole.ToolTipRole and record is not None and record.error:
            return record.error
        if role == STEP_ROLE:
            return record
        return None


Change = Literal["added", "changed", "removed"]


@dataclass(frozen=True)
class StoreChange:
    key: str
    change: Change
    tokens: int
    before: Any = None
    after: Any = None


def store_changes(step: StepRecord) -> list[StoreChange]:
    """What ``step`` did to the context store, key by key, with the values before and after."""
    changes: list[StoreChange] = []
    for change, keys in (("added", step.added), ("changed", step.changed), ("removed", step.removed)):
        for key, tokens in keys.items():
            changes.append(
                StoreChange(
                    key,
                    change,  # type: ignore[arg-type]
                    tokens,
                    step.store_before.get(key),
                    step.store_after.get(key),
                )
            )
    return changes


class StoreDiffColumn(IntEnum):
    KEY = 0
    CHANGE = 1
    TOKENS = 2
    BEFORE = 3
    AFTER = 4


class StoreDiffModel(RowTableModel[StoreChange]):
    HEADERS = ("Key", "Change", "Tokens", "Before", "After")

    def set_step(self, step: StepRecord | None) -> None:
        self._reset_rows(store_changes(step) if step is not None else [])

    def cell_data(self, row: StoreChange, column: int, role: int) -> Any:
        before = "" if row.change == "added" else shown_value(row.before, 120)
        after = "" if row.change == "removed" else shown_value(row.after, 120)
        if role == Qt.ItemDataRole.DisplayRole:
            return (row.key, row.change, f"{row.tokens:,}", before, after)[column]
        if role == Qt.ItemDataRole.ToolTipRole and column in (StoreDiffColumn.BEFORE, StoreDiffColumn.AFTER):
            value = row.before if column == StoreDiffColumn.BEFORE else row.after
            return shown_value(value, 4000)
        return None
