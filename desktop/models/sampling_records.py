"""The sampling requests tool servers made during one reply (its RequestContext's ``samplings``),
as a table: who asked, how it was decided, which model answered and what it cost."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from agent_core.context.items import SamplingRecord
from desktop.models._table import RowTableModel

__all__ = ["SamplingRecordsModel", "record_details"]

OUTCOME_TEXT = {"answered": "Answered", "denied": "Denied", "refused": "Refused (cap)", "failed": "Failed"}
APPROVAL_TEXT = {
    "allowed_once": "allowed once",
    "allowed_for_server": "always for this server",
    "allowed_by_setting": "sampling: allow",
    "denied": "denied by you",
    "denied_by_setting": "sampling: deny",
}


class SamplingRecordsModel(RowTableModel[SamplingRecord]):
    HEADERS = ("Server", "During", "Outcome", "Model", "Tokens", "Time")

    def set_records(self, records: tuple[SamplingRecord, ...]) -> None:
        self._reset_rows(records)

    def record_at(self, row: int) -> SamplingRecord | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def cell_data(self, row: SamplingRecord, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            tokens = (row.usage.input_tokens or 0) + (row.usage.output_tokens or 0)
            outcome = OUTCOME_TEXT.get(row.outcome, row.outcome)
            how = APPROVAL_TEXT.get(row.approval, row.approval)
            return (
                row.server,
                f"{row.server}.{row.tool}",
                f"{outcome} ({how})" if how else outcome,
                row.model or "—",
                f"{row.usage.input_tokens or 0:,} in, {row.usage.output_tokens or 0:,} out"
                if tokens
                else "—",
                f"{row.elapsed_seconds:.1f} s",
            )[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.note or None
        return None


def record_details(record: SamplingRecord) -> str:
    """What was sent and what came back, as plain text for the detail pane."""
    lines = [f"Asked by the MCP server '{record.server}' while {record.server}.{record.tool} ran."]
    lines.append(f"Up to {record.max_tokens:,} output tokens granted.")
    if record.note:
        lines.append(f"Note: {record.note}")
    if record.system_prompt:
        lines += ["", "System prompt:", record.system_prompt]
    lines += ["", "Sent:", record.prompt or "(nothing)"]
    if record.outcome == "answered":
        lines += ["", f"Answer ({record.model}):", record.answer or "(empty)"]
    return "\n".join(lines)
