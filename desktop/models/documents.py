"""An agent's rules or references as a table: priority, name, include mode, description."""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt

from agent_core.agent.items import DocumentItem
from desktop.models._table import HeaderedTableModel

__all__ = ["Column", "DocumentFilter", "DocumentListModel", "Role", "document_proxy"]

Index = QModelIndex | QPersistentModelIndex


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


class DocumentListModel(HeaderedTableModel):
    HEADERS = tuple(HEADERS[column] for column in Column)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._items: list[DocumentItem] = []

    def set_documents(self, documents: Iterable[DocumentItem]) -> None:
        """Replace the rows; an unchanged list emits nothing, a same-names list only ``dataChanged``."""
        new = sorted(documents, key=lambda d: d.name)
        if [d.name for d in new] == [d.name for d in self._items]:
            changed = [i for i, (a, b) in enumerate(zip(self._items, new, strict=True)) if a != b]
            self._items = new
            for row in changed:
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(Column) - 1), [])
            return
        self.beginResetModel()
        self._items = new
        self.endResetModel()

    def document(self, row: int) -> DocumentItem:
        return self._items[row]

    def row_of(self, name: str) -> int | None:
        return next((i for i, d in enumerate(self._items) if d.name == name), None)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._items)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        item = self._items[index.row()]
        column = Column(index.column())
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                Column.PRIORITY: f"{item.priority_level:03d}",
                Column.NAME: item.name,
                Column.INCLUDE: item.include.value.capitalize(),
                Column.DESCRIPTION: item.description,
            }[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            return item.description or item.name
        if role == Role.DOCUMENT:
            return item
        if role == Role.NAME:
            return item.name
        if role == Role.SORT_KEY:
            if column is Column.PRIORITY:
                return f"{item.priority_level:03d}\x00{item.name.lower()}"
            return str(self.data(index, Qt.ItemDataRole.DisplayRole)).lower()
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
