"""A tool's structured content as Qt models: a table when it is rows of flat objects (or one flat
object), a tree otherwise. Both are bounded: the content comes from an untrusted server."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

__all__ = ["MAX_TABLE_ROWS", "MAX_TREE_NODES", "StructuredTableModel", "StructuredTreeModel", "table_shape"]

Index = QModelIndex | QPersistentModelIndex
MAX_TABLE_ROWS = 1000
MAX_TABLE_COLUMNS = 50
MAX_TREE_NODES = 5000
MAX_CELL_CHARACTERS = 500


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _flat(value: Any) -> bool:
    return isinstance(value, Mapping) and all(_is_scalar(v) for v in value.values())


def table_shape(value: Mapping[str, Any]) -> tuple[list[str], list[list[Any]]] | None:
    """Columns and rows when ``value`` reads well as a table, else None (show it as a tree).

    A table: one flat object (two columns, field and value), or an object whose only member is
    a list of flat objects (one column per key, in the order keys first appear).
    """
    if _flat(value):
        return ["Field", "Value"], [[key, item] for key, item in value.items()]
    if len(value) != 1:
        return None
    [rows] = value.values()
    if not isinstance(rows, list) or not rows or not all(_flat(row) for row in rows):
        return None
    columns: list[str] = []
    for row in rows[:MAX_TABLE_ROWS]:
        columns.extend(key for key in row if key not in columns)
    columns = columns[:MAX_TABLE_COLUMNS]
    return columns, [[row.get(column) for column in columns] for row in rows[:MAX_TABLE_ROWS]]


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= MAX_CELL_CHARACTERS else text[:MAX_CELL_CHARACTERS] + "…"


class StructuredTableModel(QAbstractTableModel):
    """Rows of a table-shaped structured result (see :func:`table_shape`)."""

    def __init__(self, columns: Sequence[str], rows: Sequence[Sequence[Any]], parent: Any = None) -> None:
        super().__init__(parent)
        self._columns = list(columns)
        self._rows = [list(row) for row in rows]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        value = self._rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return "" if value is None else _cell(value)
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self._columns[section] if 0 <= section < len(self._columns) else None
        return None


@dataclass(eq=False)
class _Node:
    key: str
    value: str  # a scalar's text, or a summary ("3 items") of an object or list
    parent: _Node | None = None
    row: int = 0  # its place among its parent's children
    children: list[_Node] = field(default_factory=list)


class StructuredTreeModel(QAbstractItemModel):
    """Any structured result as a tree of keys (column 0) and values (column 1); past
    ``MAX_TREE_NODES`` nodes the rest is left out, and a last node says so."""

    HEADERS = ("Key", "Value")

    def __init__(self, value: Any, parent: Any = None) -> None:
        super().__init__(parent)
        self._root = _Node("", "")
        self._count = 0
        self._add_children(self._root, value)
        if self._count >= MAX_TREE_NODES:
            self._root.children.append(_Node("…", "more left out", self._root, len(self._root.children)))

    def _add_children(self, node: _Node, value: Any) -> None:
        items = value.items() if isinstance(value, Mapping) else enumerate(value)
        for key, item in items:
            if self._count >= MAX_TREE_NODES:
                return
            self._count += 1
            child = _Node(str(key), _summary(item), node, len(node.children))
            node.children.append(child)
            if isinstance(item, Mapping | list):
                self._add_children(child, item)

    def _node(self, index: Index) -> _Node:
        node = index.internalPointer() if index.isValid() else None
        return node if isinstance(node, _Node) else self._root

    def index(self, row: int, column: int, parent: Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        owner = self._node(parent)
        if not 0 <= row < len(owner.children) or not 0 <= column < 2:
            return QModelIndex()
        return self.createIndex(row, column, owner.children[row])

    def parent(self, index: Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        node = self._node(index)
        if node is self._root or node.parent is None or node.parent is self._root:
            return QModelIndex()
        return self.createIndex(node.parent.row, 0, node.parent)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._node(parent).children)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 2

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or role != Qt.ItemDataRole.DisplayRole:
            return None
        node = self._node(index)
        return node.key if index.column() == 0 else node.value

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section] if 0 <= section < 2 else None
        return None


def _summary(value: Any) -> str:
    if isinstance(value, Mapping):
        return f"{len(value)} field{'s' if len(value) != 1 else ''}"
    if isinstance(value, list):
        return f"{len(value)} item{'s' if len(value) != 1 else ''}"
    return _cell(value) if value is not None else "null"
