"""What every flat model of the app shares: a list of row values, the bounds guard, column titles.

A model keeps its rows in ``_rows`` and writes only :meth:`cell_data` (tables) or
:meth:`row_data` (lists): what one row shows for a column and role. The base answers ``rowCount``
(flat: no children) and turns an invalid or out-of-range index into ``None``, which Qt asks for
during resets and from stale persistent indexes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from PySide6.QtCore import QAbstractListModel, QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

__all__ = ["FileTableModel", "HeaderedTableModel", "Index", "RowListModel", "RowTableModel"]

Index = QModelIndex | QPersistentModelIndex
RowT = TypeVar("RowT")


def _row_at(rows: Sequence[RowT], index: Index) -> RowT | None:
    """The row value ``index`` points at; None for an invalid index or one past the rows."""
    if not index.isValid() or not 0 <= index.row() < len(rows):
        return None
    return rows[index.row()]


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


class RowTableModel(HeaderedTableModel, Generic[RowT]):
    """A table over a list of row values; subclasses write :meth:`cell_data`."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[RowT] = []

    def _reset_rows(self, rows: Iterable[RowT]) -> None:
        """Replace every row (views reset: selection and scroll position go)."""
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = _row_at(self._rows, index)
        return None if row is None else self.cell_data(row, index.column(), role)

    def cell_data(self, row: RowT, column: int, role: int) -> Any:
        """What ``row`` shows in ``column`` for ``role``; None for nothing."""
        raise NotImplementedError


class RowListModel(QAbstractListModel, Generic[RowT]):
    """A one-column list over row values; subclasses write :meth:`row_data`."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[RowT] = []

    def _reset_rows(self, rows: Iterable[RowT]) -> None:
        """Replace every row (views reset: selection and scroll position go)."""
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = _row_at(self._rows, index)
        return None if row is None else self.row_data(row, role)

    def row_data(self, row: RowT, role: int) -> Any:
        """What ``row`` shows for ``role``; None for nothing."""
        raise NotImplementedError


class FileTableModel(RowTableModel[RowT]):
    """A table of an agent's files, a file a row, found again by its path (for the file editor)."""

    def file_of(self, row: RowT) -> Path | None:
        """The file ``row`` was read from; None for one with no file."""
        raise NotImplementedError

    def path_at(self, row: int) -> Path | None:
        return self.file_of(self._rows[row]) if 0 <= row < len(self._rows) else None

    def row_of(self, path: Path) -> int | None:
        wanted = path.resolve()
        return next(
            (
                i
                for i, r in enumerate(self._rows)
                if (p := self.file_of(r)) is not None and p.resolve() == wanted
            ),
            None,
        )
