"""A workflow's past runs, newest first, as a table."""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import Qt

from agent_core.workflows.records import WorkflowRunRecord
from desktop.models._table import RowTableModel
from desktop.models.workflow_steps import shown_value

__all__ = ["WorkflowRunsModel"]


class WorkflowRunsModel(RowTableModel[WorkflowRunRecord]):
    HEADERS = ("Started", "Status", "Input", "Run")

    def set_runs(self, runs: list[WorkflowRunRecord]) -> None:
        self._reset_rows(runs)

    def run_at(self, row: int) -> WorkflowRunRecord | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def cell_data(self, row: WorkflowRunRecord, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(row.started_at))
            status = row.status + (" (mock outputs)" if row.mocked else "")
            return (started, status, shown_value(row.input, 60), row.id)[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.error or None
        return None
