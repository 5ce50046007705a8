"""Column titles of the table models: one per column, none past the last."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop.models.sessions import SessionListModel
from desktop.models.tools import ServerStatusModel


def test_each_column_has_its_title_and_none_beyond() -> None:
    for model, titles in (
        (SessionListModel(), ["Chat", "Updated"]),
        (ServerStatusModel(), ["Server", "Type", "Status", "Tools", "Detail"]),
    ):
        assert model.columnCount() == len(titles)
        horizontal = Qt.Orientation.Horizontal
        assert [model.headerData(c, horizontal) for c in range(model.columnCount())] == titles
        assert model.headerData(len(titles), horizontal) is None
        assert model.headerData(0, Qt.Orientation.Vertical) is None
        assert model.headerData(0, horizontal, Qt.ItemDataRole.ToolTipRole) is None
