"""The shared row-model bases: a model writes only what one row shows; bounds are the base's job."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtTest import QAbstractItemModelTester
from pytestqt.qtbot import QtBot

from desktop.models._table import RowListModel, RowTableModel


class Words(RowTableModel[str]):
    HEADERS = ("Word", "Length")

    def set_words(self, words: list[str]) -> None:
        self._reset_rows(words)

    def cell_data(self, row: str, column: int, role: int) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        return row if column == 0 else len(row)


class Shouted(RowListModel[str]):
    def set_words(self, words: list[str]) -> None:
        self._reset_rows(words)

    def row_data(self, row: str, role: int) -> Any:
        return row.upper() if role == Qt.ItemDataRole.DisplayRole else None


def test_a_table_model_shows_its_cells_and_nothing_outside_its_rows(qtbot: QtBot) -> None:
    model = Words()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.set_words(["desk", "context"])
    assert [[model.index(r, c).data() for c in range(2)] for r in range(model.rowCount())] == [
        ["desk", 4],
        ["context", 7],
    ]
    assert model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole) is None
    assert model.data(QModelIndex()) is None
    # An index that outlived its row (a view holding on through a reset) reads as empty.
    stale = model.createIndex(5, 0)
    assert stale.isValid() and model.data(stale) is None
    assert model.rowCount(model.index(0, 0)) == 0  # flat: rows have no children


def test_replacing_the_rows_resets_the_table(qtbot: QtBot) -> None:
    model = Words()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.set_words(["a", "b", "c"])
    with qtbot.waitSignal(model.modelReset, timeout=1000):
        model.set_words(["only"])
    assert model.rowCount() == 1 and model.index(0, 1).data() == 4


def test_a_list_model_shows_its_rows_and_nothing_outside_them(qtbot: QtBot) -> None:
    model = Shouted()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.set_words(["hello", "there"])
    assert [model.index(r).data() for r in range(model.rowCount())] == ["HELLO", "THERE"]
    assert model.data(model.createIndex(2, 0)) is None
    assert model.rowCount(model.index(0)) == 0
    model.set_words([])
    assert model.rowCount() == 0 and model.data(model.index(0)) is None
