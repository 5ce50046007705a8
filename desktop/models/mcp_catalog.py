"""What the agent's MCP servers offer besides tools: resources (to attach) and prompts (to insert).

Both are lists of one column, sorted by server then name, with the item itself under a role.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import Any, TypeVar

from PySide6.QtCore import Qt

from agent_core.mcp.types import PromptInfo, ResourceInfo
from desktop.models._table import RowListModel

__all__ = ["CatalogRole", "PromptListModel", "ResourceListModel"]

T = TypeVar("T", ResourceInfo, PromptInfo)


class CatalogRole(IntEnum):
    ITEM = Qt.ItemDataRole.UserRole + 1  # the ResourceInfo or PromptInfo
    SERVER = Qt.ItemDataRole.UserRole + 2
    NAME = Qt.ItemDataRole.UserRole + 3  # a resource's URI, a prompt's name
    DESCRIPTION = Qt.ItemDataRole.UserRole + 4


class _CatalogModel(RowListModel[T]):
    def set_items(self, items: Sequence[T]) -> None:
        self._reset_rows(sorted(items, key=self._sort_key))

    def item(self, row: int) -> T:
        return self._rows[row]

    def items(self) -> list[T]:
        return list(self._rows)

    def row_data(self, item: T, role: int) -> Any:
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
