"""The workflows one reply ran (its RequestContext's ``workflow_runs``), as a table."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from agent_core.context.items import WorkflowRunLink
from desktop.models._table import RowTableModel

__all__ = ["WorkflowLinksModel"]


class WorkflowLinksModel(RowTableModel[WorkflowRunLink]):
    HEADERS = ("Workflow", "Status", "Steps", "Tokens", "Time", "Run")

    def set_links(self, links: tuple[WorkflowRunLink, ...]) -> None:
        self._reset_rows(links)

    def link_at(self, row: int) -> WorkflowRunLink | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def cell_data(self, row: WorkflowRunLink, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            tokens = (row.usage.input_tokens or 0) + (row.usage.output_tokens or 0)
            return (
                row.workflow,
                row.status,
                str(row.steps),
                f"{tokens:,}",
                f"{row.elapsed_seconds:.1f} s",
                row.run_id,
            )[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.error or None
        return None
