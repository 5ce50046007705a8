"""The items a what-if can toggle: what the reply used (checked) and its near-misses (unchecked)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import Qt

from agent_core.context.items import ItemRef, RequestContext
from desktop.models._table import Index, RowListModel

__all__ = ["ToggleItemsModel", "ToggleRow"]


@dataclass(frozen=True)
class ToggleRow:
    ref: ItemRef
    used: bool  # the original request used it
    checked: bool
    mode: str | None = None
    score: float | None = None
    title: str = ""  # a memory's words

    @property
    def label(self) -> str:
        how = self.mode.capitalize() if self.mode else "not included"
        score = "" if self.score is None else f" {self.score:.2f}"
        name = f"“{self.title}”" if self.title else self.ref.label()
        return f"{self.ref.type}  {name}  ({how}{score})"


class ToggleItemsModel(RowListModel[ToggleRow]):
    """Checkable rows; unchecking a used item excludes it, checking a near-miss includes it."""

    def __init__(
        self, context: RequestContext, parent: Any = None, memory_texts: Mapping[str, str] | None = None
    ) -> None:
        """``memory_texts``: the words of the memories in ``context``, by id, to name them by."""
        super().__init__(parent)
        texts = memory_texts or {}

        def title(ref: ItemRef) -> str:
            return texts.get(ref.name, "") if ref.type == "memory" else ""

        used = [ToggleRow(i.ref, True, True, i.include_mode, i.score, title(i.ref)) for i in context.items]
        seen = {row.ref for row in used}
        misses = [
            ToggleRow(m.ref, False, False, None, m.score, title(m.ref))
            for m in context.near_misses
            if m.ref not in seen
        ]
        self._rows = used + misses

    def rows(self) -> list[ToggleRow]:
        return list(self._rows)

    def include(self) -> list[ItemRef]:
        return [row.ref for row in self._rows if row.checked and not row.used]

    def exclude(self) -> list[ItemRef]:
        return [row.ref for row in self._rows if row.used and not row.checked]

    def set_checked(self, ref: ItemRef, checked: bool) -> None:
        for row, item in enumerate(self._rows):
            if item.ref == ref:
                self.setData(
                    self.index(row),
                    Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked,
                    Qt.ItemDataRole.CheckStateRole,
                )
                return
        raise KeyError(ref)

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsUserCheckable

    def row_data(self, row: ToggleRow, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return row.label
        if role == Qt.ItemDataRole.CheckStateRole:
            return Qt.CheckState.Checked if row.checked else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole:
            if row.used:
                return "Used by this reply: uncheck to leave it out"
            return "Considered and left out: check to include it"
        if role == Qt.ItemDataRole.UserRole:
            return row.ref
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.CheckStateRole or not index.isValid():
            return False
        checked = Qt.CheckState(value) == Qt.CheckState.Checked if not isinstance(value, bool) else value
        row = self._rows[index.row()]
        if row.checked != checked:
            self._rows[index.row()] = replace(row, checked=checked)
            self.dataChanged.emit(index, index, [Qt.ItemDataRole.CheckStateRole])
        return True
