"""The agent's sub-agents as a table: name, context, model, tools and limits, a sub-agent a row."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from agent_core.agent.subagent_files.definition import Subagent
from desktop.models._table import FileTableModel

__all__ = ["SubagentsModel"]


class SubagentsModel(FileTableModel[Subagent]):
    HEADERS = ("Name", "Context", "Model", "Tools", "Limits")

    def set_subagents(self, subagents: list[Subagent]) -> None:
        self._reset_rows(subagents)

    def file_of(self, row: Subagent) -> Path | None:
        return row.path

    def cell_data(self, row: Subagent, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            limits = row.limits
            tools = "every tool" if row.tools is None else ", ".join(row.tools) or "none"
            return (
                row.name,
                row.context,
                row.model,
                tools,
                f"{limits.max_turns} turns · {limits.max_tokens:,} tokens · {limits.timeout_seconds:g} s",
            )[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.description
        return None
