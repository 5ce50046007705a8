"""The base of the transcript's row widgets (dimmed once a summary stands for their row), and what
several of them share: a value as indented JSON, a text box fitted to its lines, the line that
opens and closes a row's details."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsOpacityEffect,
    QPlainTextEdit,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from desktop.models.conversation_entries import Entry
from desktop.theme import colors

__all__ = ["EntryWidget", "disclosure_toggle", "fit_box", "json_text"]

DIMMED_OPACITY = 0.45
DIMMED_TIP = "Summarized: the model now sees the conversation summary instead of this message."


class EntryWidget(QFrame):
    """Base of the row widgets; :meth:`set_entry` is called on every ``dataChanged``."""

    #: Dimmed by an opacity effect (the whole row fades), or, where the row may hold a table or a
    #: web view (a tool call's structured result, an MCP App), by muted text: an opacity effect
    #: paints such children from a stale copy, and other rows' text showed through them.
    DIM_BY_OPACITY = True

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.entry: Entry | None = None
        self._dimmed = False
        self._undimmed_palette: QPalette | None = None

    def set_entry(self, entry: Entry) -> None:
        self.entry = entry
        self._set_dimmed(entry.dimmed)

    def _set_dimmed(self, dimmed: bool) -> None:
        if dimmed == self._dimmed:
            return
        self._dimmed = dimmed
        self.setToolTip(DIMMED_TIP if dimmed else "")
        if self.DIM_BY_OPACITY:
            effect = QGraphicsOpacityEffect(self) if dimmed else None
            if effect is not None:
                effect.setOpacity(DIMMED_OPACITY)
            self.setGraphicsEffect(effect)  # type: ignore[arg-type]
            return
        if dimmed:
            self._undimmed_palette = QPalette(self.palette())
            muted = QColor(colors().muted)
            palette = QPalette(self.palette())
            for role in (
                QPalette.ColorRole.WindowText,
                QPalette.ColorRole.Text,
                QPalette.ColorRole.ButtonText,
            ):
                palette.setColor(role, muted)
            self.setPalette(palette)
        elif self._undimmed_palette is not None:
            self.setPalette(self._undimmed_palette)

    @property
    def dimmed(self) -> bool:
        return self._dimmed


def json_text(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def fit_box(box: QPlainTextEdit, max_lines: int = 12) -> None:
    lines = min(max_lines, max(1, box.toPlainText().count("\n") + 1))
    box.setFixedHeight(box.fontMetrics().lineSpacing() * lines + 14)


def disclosure_toggle() -> QToolButton:
    """A row-wide checkable line whose arrow points down while it is open (connect ``toggled`` to
    show the details)."""
    toggle = QToolButton()
    toggle.setCheckable(True)
    toggle.setAutoRaise(True)
    toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    toggle.setArrowType(Qt.ArrowType.RightArrow)
    toggle.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    toggle.toggled.connect(
        lambda expanded: toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
    )
    return toggle
