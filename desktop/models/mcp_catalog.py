"""What the agent's MCP servers offer besides tools: resources (to attach) and prompts (to insert).

Both are lists of one column, sorted by server then name, with the item itself under a role.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from agent_core.mcp.types import PromptInfo, ResourceInfo

__all__ = ["CatalogRole", "PromptListModel", "ResourceListModel"]

Index = QModelIndex | QPersistentModelIndex
T = TypeVar("T", ResourceInfo, PromptInfo)


class CatalogRole(IntEnum):
    ITEM = Qt.ItemDataRole.UserRole + 1  # the ResourceInfo or PromptInfo
    SERVER = Qt.ItemDataRole.UserRole + 2
    NAME = Qt.ItemDataRole.UserRole + 3  # a resource's URI, a prompt's name
    DESCRIPTION = Qt.ItemDataRole.UserRole + 4


class _CatalogModel(QAbstractListModel, Generic[T]):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._items: list[T] = []

    def set_items(self, items: Sequence[T]) -> None:
        self.beginResetModel()
        self._items = sorted(items, key=self._sort_key)
        self.endResetModel()

    def item(self, row: int) -> T:
        return self._items[row]

    def items(self) -> list[T]:
        return list(self._items)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._items)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        item = self._items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._label(item)
        if role == Qt.ItemDataRole.ToolTipRole:
            return "\n".join(part for part in (self._label(item), item.description) if part)
        by_role: dict[int, object] = {
            CatalogRole.ITEM: item,
            CatalogRole.SERVER: item.server,
            CatalogRole.NAME: self._name(item),
            CatalogRole.DESCRIPTION: item.description,
        }
        return by_role.get(role)

    def _sort_key(self, item: T) -> tuple[str, str]:
        return item.server.lower(), self._name(item).lower()

    def _name(self, item: T) -> str:
        raise NotImplementedError

    def _label(self, item: T) -> str:
        raise NotImplementedError


class ResourceListModel(_CatalogModel[ResourceInfo]):
    """Resources as ``server: title (uri)``."""

    def _name(self, item: ResourceInfo) -> str:
        return item.uri

    def _label(self, item: ResourceInfo) -> str:
        title = item.title or item.name
        return (
            f"{item.server}: {title}  ({item.uri})"
            if title and title != item.uri
            else f"{item.server}: {item.uri}"
        )


class PromptListModel(_CatalogModel[PromptInfo]):
    """Prompts as ``server: name — description``."""

    def _name(self, item: PromptInfo) -> str:
        return item.name

    def _label(self, item: PromptInfo) -> str:
        title = item.title or item.name
        return (
            f"{item.server}: {title} — {item.description}" if item.description else f"{item.server}: {title}"
        )
