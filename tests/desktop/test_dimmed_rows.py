"""Rows a summary stands for are dimmed: most fade as a whole, while a tool call (whose result may
be a table or an app's web view, which an opacity effect paints from a stale copy) gets muted
text instead; both say why in their tooltip and come back when the summary is undone."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QGraphicsOpacityEffect, QLabel, QVBoxLayout
from pytestqt.qtbot import QtBot

from desktop.models.conversation_entries import Entry
from desktop.theme import colors
from desktop.views.entry_widget import DIMMED_TIP, EntryWidget
from desktop.views.tool_call_widget import ToolCallWidget


class _TableRow(EntryWidget):
    DIM_BY_OPACITY = False

    def __init__(self) -> None:
        super().__init__()
        QVBoxLayout(self).addWidget(QLabel("structured result"))


def test_a_row_with_tables_or_views_is_dimmed_by_muted_text_not_an_opacity_effect(qtbot: QtBot) -> None:
    assert not ToolCallWidget.DIM_BY_OPACITY and EntryWidget.DIM_BY_OPACITY
    row = _TableRow()
    qtbot.addWidget(row)
    before = row.palette().color(QPalette.ColorRole.WindowText)
    row.set_entry(Entry("tool", dimmed=True))
    assert row.dimmed and row.graphicsEffect() is None and row.toolTip() == DIMMED_TIP
    assert row.palette().color(QPalette.ColorRole.WindowText) == QColor(colors().muted)
    row.set_entry(Entry("tool", dimmed=False))  # the summary undone
    assert not row.dimmed and row.toolTip() == ""
    assert row.palette().color(QPalette.ColorRole.WindowText) == before


def test_other_rows_fade_as_a_whole(qtbot: QtBot) -> None:
    row = EntryWidget()
    qtbot.addWidget(row)
    row.set_entry(Entry("assistant", dimmed=True))
    assert row.dimmed and isinstance(row.graphicsEffect(), QGraphicsOpacityEffect)
    row.set_entry(Entry("assistant", dimmed=False))
    assert not row.dimmed and row.graphicsEffect() is None
