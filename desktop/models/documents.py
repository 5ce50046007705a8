"""An agent's rules or references as a table: priority, name, include mode, description."""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Any

from PySide6.QtCore import QSortFilterProxyModel, Qt

from agent_core.agent.items import DocumentItem
from desktop.models._table import Index, RowTableModel

__all__ = ["Column", "DocumentFilter", "DocumentListModel", "Role", "document_proxy"]


class Column(IntEnum):
    PRIORITY = 0
    NAME = 1
    INCLUDE = 2
    DESCRIPTION = 3


HEADERS = {
    Column.PRIORITY: "Priority",
    Column.NAME: "Name",
    Column.INCLUDE: "Include",
    Column.DESCRIPTION: "Description",
}


class Role(IntEnum):
    DOCUMENT = Qt.ItemDataRole.UserRole + 1
    SORT_KEY = Qt.ItemDataRole.UserRole + 2
    NAME = Qt.ItemDataRole.UserRole + 3


class DocumentListModel(RowTableModel[DocumentItem]):
    HEADERS = tuple(HEADERS[column] for column in Column)

    def set_documents(self, documents: Iterable[DocumentItem]) -> None:
        """Replace the rows; an unchanged list emits nothing, a same-names list only ``dataChanged``."""
        new = sorted(documents, key=lambda d: d.name)
        if [d.name for d in new] == [d.name for d in self._rows]:
            changed = [i for i, (a, b) in enumerate(zip(self._rows, new, strict=True)) if a != b]
            self._rows = new
            for row in changed:
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(Column) - 1), [])
            return
        self._reset_rows(new)

    def document(self, row: int) -> DocumentItem:
        return self._rows[row]

    def row_of(self, name: str) -> int | None:
        return next((i for i, d in enumerate(self._rows) if d.name == name), None)

    def cell_data(self, item: DocumentItem, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                Column.PRIORITY: f"{item.priority_level:03d}",
                Column.NAME: item.name,
                Column.INCLUDE: item.include.value.capitalize(),
                Column.DESCRIPTION: item.description,
            }[Column(column)]
        if role == Qt.ItemDataRole.ToolTipRole:
            return item.description or item.name
        if role == Role.DOCUMENT:
            return item
        if role == Role.NAME:
            return item.name
        if role == Role.SORT_KEY:
            if column == Column.PRIORITY:
                return f"{item.priority_level:03d}\x00{item.name.lower()}"
            return str(self.cell_data(item, column, Qt.ItemDataRole.DisplayRole)).lower()
        return None


class DocumentFilter(QSortFilterProxyModel):
    """Matches the filter text in the name or the description."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._text = ""

    def set_text(self, text: str) -> None:
        self.beginFilterChange()
        self._text = text.strip().lower()
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        pattern = self._text
        if not pattern:
            return True
        model = self.sourceModel()
        return any(
            pattern in str(model.index(source_row, column, source_parent).data()).lower()
            for column in (Column.NAME, Column.DESCRIPTION)
        )


def document_proxy(model: DocumentListModel, parent: Any = None) -> DocumentFilter:
    proxy = DocumentFilter(parent)
    proxy.setSourceModel(model)
    proxy.setSortRole(Role.SORT_KEY)
    proxy.setDynamicSortFilter(True)
    proxy.sort(Column.PRIORITY)
    return proxy
