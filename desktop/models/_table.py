"""The part every flat table model of the app shares: its columns and their titles."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

__all__ = ["HeaderedTableModel"]

Index = QModelIndex | QPersistentModelIndex


class HeaderedTableModel(QAbstractTableModel):
    """A flat table with one column per title in ``HEADERS``, in order."""

    HEADERS: ClassVar[Sequence[str]] = ()

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            orientation == Qt.Orientation.Horizontal
            and role == Qt.ItemDataRole.DisplayRole
            and 0 <= section < len(self.HEADERS)
        ):
            return self.HEADERS[section]
        return None
