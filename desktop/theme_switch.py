"""Switching the theme live: the widgets built before a switch take the new theme's colours at
once. Widgets style themselves from the theme's ``Palette`` when they are built; on a switch
every colour of the old palette in a widget's style sheet or in a label's rich text becomes the
same role's colour in the new one, every styled widget is polished again against the new Qt
palette, and widgets that render their content from the palette (markdown) render it again."""

from __future__ import annotations

import re
from dataclasses import astuple
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel

if TYPE_CHECKING:
    from desktop.theme import Palette

__all__ = ["Rethemable", "restyle_widgets"]

_COLOUR = re.compile(r"^#[0-9a-f]{6}$", re.IGNORECASE)


@runtime_checkable
class Rethemable(Protocol):
    """A widget that renders its content with the theme's colours (not only its style sheet)."""

    def retheme(self) -> None:
        """Render again with the colours of the theme now applied."""


def restyle_widgets(old: Palette, new: Palette) -> None:
    """Give every widget built with ``old``'s colours ``new``'s (see the module's docstring)."""
    swap = {
        before.lower(): after
        for before, after in zip(astuple(old), astuple(new), strict=True)
        if before != after and _COLOUR.match(before)
    }
    pattern = re.compile("|".join(re.escape(colour) for colour in swap), re.IGNORECASE) if swap else None

    def swapped(text: str) -> str:
        return pattern.sub(lambda found: swap[found.group().lower()], text) if pattern is not None else text

    for widget in QApplication.allWidgets():
        sheet = widget.styleSheet()
        if sheet:
            # Set even when unchanged: a styled widget keeps the Qt palette it was polished with.
            widget.setStyleSheet(swapped(sheet))
        if isinstance(widget, QLabel) and widget.textFormat() != Qt.TextFormat.PlainText:
            text = widget.text()
            if (changed := swapped(text)) != text:
                widget.setText(changed)
            elif "<a " in text:  # a link takes the palette's colour when the text is laid out
                widget.clear()
                widget.setText(text)
        if isinstance(widget, Rethemable):
            widget.retheme()
