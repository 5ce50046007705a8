"""How a context item row is painted: names cut so that two alike ones stay told apart."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QListView, QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from agent_core.context.items import ItemRef
from desktop.models.context_items import Column, ContextItemsModel, ContextRow
from desktop.views.item_delegate import ContextItemDelegate
from tests.support.desktop_driver import screenshot

ROW_WIDTH = 260  # the context panel's list in a 1024-pixel-wide window: both names cut


class TextRecorder(QPainter):
    """A painter that keeps every text it draws."""

    def __init__(self, image: QImage) -> None:
        super().__init__(image)
        self.texts: list[str] = []

    def drawText(self, *args: Any) -> None:  # type: ignore[override]
        self.texts.append(str(args[-1]))
        super().drawText(*args)


def painted_texts(view: QListView, delegate: ContextItemDelegate, row: int) -> list[str]:
    model = view.model()
    option = QStyleOptionViewItem()
    option.rect = QRect(0, 0, ROW_WIDTH, 48)
    option.font = view.font()
    option.palette = view.palette()
    option.widget = view
    image = QImage(ROW_WIDTH, 48, QImage.Format.Format_ARGB32)
    painter = TextRecorder(image)
    try:
        delegate.paint(painter, option, model.index(row, Column.NAME))
    finally:
        painter.end()
    return painter.texts


def test_tool_names_that_start_alike_stay_told_apart_when_cut(qtbot: QtBot) -> None:
    names = ("filesystem_read_text_file", "filesystem_read_multiple_files")
    model = ContextItemsModel([ContextRow(ItemRef("tool", name, "filesystem"), "always") for name in names])
    view = QListView()
    qtbot.addWidget(view)
    view.setModel(model)
    delegate = ContextItemDelegate(view)
    view.setItemDelegate(delegate)
    view.resize(ROW_WIDTH, 120)
    view.show()
    screenshot(view, "tool_names_cut_in_the_middle")

    shown = []
    for row in range(len(names)):
        drawn = painted_texts(view, delegate, row)
        (name,) = [text for text in drawn if text not in ("filesystem.", "Always")]
        shown.append(name)
    assert all("…" in name for name in shown)  # too long for the row: cut
    assert shown[0] != shown[1]
    for own, other, name in ((names[0], names[1], shown[0]), (names[1], names[0], shown[1])):
        end = name.split("…")[-1]  # what is left of the end tells the two apart
        assert own.endswith(end) and not other.endswith(end)
    tooltip = model.index(0, Column.NAME).data(Qt.ItemDataRole.ToolTipRole)
    assert tooltip.startswith("filesystem.filesystem_read_text_file")  # the whole name
