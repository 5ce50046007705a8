"""A chat's sub-agent runs as a table: one row per run (its sub-agents' own runs too), live while
they run, read back from the saved replies afterwards."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from enum import IntEnum
from typing import Any

from PySide6.QtCore import QModelIndex, Qt

from agent_core.chat.events import ChatEvent, SubagentFinished, SubagentProgress, SubagentStarted
from agent_core.context.items import RequestContext
from agent_core.subagents.runs import SubagentRun, path_of, run_of
from desktop.models._table import RowTableModel

__all__ = ["RunColumn", "SubagentRunsModel", "describe_run_state"]


class RunColumn(IntEnum):
    NAME = 0
    TASK = 1
    STATUS = 2
    TURNS = 3
    TOKENS = 4
    TIME = 5


STATUS_TEXT = {
    "running": "running",
    "finished": "finished",
    "stopped": "stopped at a cap",
    "cancelled": "cancelled",
    "failed": "failed",
}


def describe_run_state(run: SubagentRun) -> str:
    """ "running · 2 turns · 1,234 tokens · 3.1 s · calling workspace.read_file" """
    parts = [
        STATUS_TEXT.get(run.status, run.status),
        f"{run.turns} turn{'s' if run.turns != 1 else ''}",
        f"{run.tokens:,} tokens",
        f"{run.elapsed_seconds:.1f} s",
    ]
    if run.status == "running" and run.activity:
        parts.append(run.activity)
    return " · ".join(parts)


class SubagentRunsModel(RowTableModel[SubagentRun]):
    HEADERS = ("Sub-agent", "Task", "Status", "Turns", "Tokens", "Time")

    def set_contexts(self, contexts: list[RequestContext]) -> None:
        """The runs the saved replies record (their sub-agents' own runs are in the children's chats)."""
        self._reset_rows([run_of(d) for context in contexts for d in context.delegations])

    def set_runs(self, runs: list[SubagentRun]) -> None:
        self._reset_rows(runs)

    def runs(self) -> list[SubagentRun]:
        return list(self._rows)

    def run(self, call_id: str, path: str | None = None) -> SubagentRun | None:
        return next(
            (r for r in self._rows if r.call_id == call_id and (path is None or r.path == path)), None
        )

    def apply(self, event: ChatEvent) -> SubagentRun | None:
        """Apply one event of the chat; the run it changed, if any."""
        if isinstance(event, SubagentStarted):
            run = SubagentRun(
                event.call_id,
                event.subagent,
                path_of(event.origin, event.subagent),
                event.task,
                event.context_mode,
                event.child_session_id,
            )
            self._insert(run)
            return run
        if isinstance(event, SubagentProgress):
            return self._change(
                event.call_id,
                path_of(event.origin, event.subagent),
                lambda r: replace(
                    r,
                    turns=event.turns,
                    usage=event.usage,
                    elapsed_seconds=event.elapsed_seconds,
                    activity=event.activity or r.activity,
                ),
            )
        if isinstance(event, SubagentFinished):
            finished = run_of(event.delegation, event.origin)
            return self._change(finished.call_id, finished.path, lambda _r: finished)
        return None

    def _insert(self, run: SubagentRun) -> None:
        row = len(self._rows)
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.append(run)
        self.endInsertRows()

    def _change(
        self, call_id: str, path: str, change: Callable[[SubagentRun], SubagentRun]
    ) -> SubagentRun | None:
        for row, run in enumerate(self._rows):
            if run.call_id == call_id and run.path == path:
                self._rows[row] = change(run)
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.HEADERS) - 1))
                return self._rows[row]
        return None

    def cell_data(self, row: SubagentRun, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                RunColumn.NAME: row.path,
                RunColumn.TASK: " ".join(row.task.split()),
                RunColumn.STATUS: STATUS_TEXT.get(row.status, row.status)
                + (f": {row.activity}" if row.status == "running" and row.activity else ""),
                RunColumn.TURNS: str(row.turns),
                RunColumn.TOKENS: f"{row.tokens:,}",
                RunColumn.TIME: f"{row.elapsed_seconds:.1f} s",
            }.get(RunColumn(column))
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [
                f"{row.path} ({row.context_mode} context, {row.model or 'the parent’s model'})",
                row.task,
            ]
            if row.note:
                lines.append(row.note)
            return "\n".join(lines)
        if role == Qt.ItemDataRole.UserRole:
            return row
        return None
