"""How a context item row is painted: names cut so that two alike ones stay told apart."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QListView, QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from agent_core.context.items import ItemRef
from desktop.models.context_items import Column, ContextItemsModel, ContextRow
from desktop.views.item_delegate import ContextItemDelegate, make_room_for_name
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


def painted_texts(
    view: QListView, delegate: ContextItemDelegate, row: int, width: int = ROW_WIDTH
) -> list[str]:
    model = view.model()
    option = QStyleOptionViewItem()
    option.rect = QRect(0, 0, width, 48)
    option.font = view.font()
    option.palette = view.palette()
    option.widget = view
    image = QImage(width, 48, QImage.Format.Format_ARGB32)
    painter = TextRecorder(image)
    try:
        delegate.paint(painter, option, model.index(row, Column.NAME))
    finally:
        painter.end()
    return painter.texts


def delegate_view(
    qtbot: QtBot, rows: list[ContextRow], **options: bool
) -> tuple[QListView, ContextItemDelegate]:
    """A list of ``rows`` painted by the delegate (``options``: the delegate's, e.g. show_miss_badge)."""
    view = QListView()
    qtbot.addWidget(view)
    view.setModel(ContextItemsModel(rows))
    delegate = ContextItemDelegate(view, **options)
    view.setItemDelegate(delegate)
    return view, delegate


def test_tool_names_that_start_alike_stay_told_apart_when_cut(qtbot: QtBot) -> None:
    names = ("filesystem_read_text_file_of_the_workspace", "filesystem_read_multiple_files_of_the_folder")
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


def test_in_a_narrow_column_the_name_comes_before_the_not_included_badge_and_the_prefix(qtbot: QtBot) -> None:
    # View Context's "Not included" list of tools, four columns in a 1152-pixel-wide window.
    row = ContextRow(ItemRef("tool", "search_files", "workspace"), None, score=0.2)
    view, delegate = delegate_view(qtbot, [row], show_miss_badge=True)
    drawn = painted_texts(view, delegate, 0, width=200)
    assert "search_files" in drawn  # whole, not "…"
    assert "Not included" not in drawn and "workspace." not in drawn  # the tooltip keeps the server
    assert "0.20" in drawn
    wide = painted_texts(view, delegate, 0, width=600)
    assert {"workspace.", "search_files", "Not included", "0.20"} <= set(wide)


def test_room_for_a_name_is_made_in_order() -> None:
    miss, score = (("Not included", "miss"), 90.0), (("0.20", "score"), 40.0)
    assert make_room_for_name(400, 80, 70, [miss, score]) == ([miss[0], score[0]], True, [])
    assert make_room_for_name(250, 80, 70, [miss, score]) == ([score[0]], True, [])
    assert make_room_for_name(150, 80, 70, [miss, score]) == ([score[0]], False, [])
    assert make_room_for_name(150, 80, 0, [score]) == ([score[0]], True, [])  # nothing else to give way
    # A row with a second line: the badges move down to it before the prefix goes.
    assert make_room_for_name(150, 80, 70, [miss, score], room_below=True) == ([], True, [score[0]])
    assert make_room_for_name(400, 80, 70, [miss, score], room_below=True) == ([miss[0], score[0]], True, [])


def test_in_a_narrow_column_a_long_name_keeps_its_line_and_its_badges_go_below(qtbot: QtBot) -> None:
    # View Context's chosen skills, a column about 280 pixels wide: "consta…alysis" beside three
    # badges before.
    row = ContextRow(
        ItemRef("skill", "constant-time-analysis"),
        "agent",
        score=0.74,
        reason="matched its description",
        state="body inline",
    )
    view, delegate = delegate_view(qtbot, [row])
    narrow = painted_texts(view, delegate, 0, width=280)
    assert "constant-time-analysis" in narrow  # whole
    assert {"Agent", "0.74", "Body inline"} <= set(narrow)  # every badge still painted
    name_at = narrow.index("constant-time-analysis")
    assert all(narrow.index(badge) > name_at for badge in ("Agent", "0.74"))
    assert narrow[-1].startswith("matched its")  # the second line goes on after them
    wide = painted_texts(view, delegate, 0, width=700)
    assert "constant-time-analysis" in wide and "0.74" in wide


def test_in_a_narrow_column_the_token_cost_moves_under_the_name(qtbot: QtBot) -> None:
    # A sub-agent's View Context: a skill with its mode, score, what the request carried and its
    # cost, in a column about 300 pixels wide, showed "su…xt".
    row = ContextRow(
        ItemRef("skill", "summarize-text"),
        "agent",
        score=0.56,
        description="Summarize a text the user gives you.",
        tokens=274,
        state="body inline",
    )
    view, delegate = delegate_view(qtbot, [row])
    narrow = painted_texts(view, delegate, 0, width=300)
    assert "summarize-text" in narrow and "274 tok" in narrow  # the name whole, the cost still shown
    assert narrow.index("summarize-text") < narrow.index("274 tok")  # painted on the line below
    wide = painted_texts(view, delegate, 0, width=600)
    assert wide.index("274 tok") < wide.index("summarize-text")  # beside the name, at the right
