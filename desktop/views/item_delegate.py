"""Paints a context item row: priority or server prefix, name, badges (include mode, pinned, score,
a skill's state in the request), its token cost at the right, and a second line with the reason,
chunks used and description."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from desktop.models.context_items import MODE_LABELS, Role
from desktop.models.request_skills import STATE_BADGES
from desktop.theme import colors
from desktop.views.common import paint_badge

__all__ = ["ContextItemDelegate", "make_room_for_name"]

Index = QModelIndex | QPersistentModelIndex
PADDING = 8


class ContextItemDelegate(QStyledItemDelegate):
    def __init__(self, parent: QWidget | None = None, *, show_miss_badge: bool = False) -> None:
        super().__init__(parent)
        self.show_miss_badge = show_miss_badge

    def _second_line(self, index: Index) -> str:
        parts = [
            index.data(Role.REASON) or "",
            index.data(Role.DETAIL) or "",
            index.data(Role.DESCRIPTION) or "",
        ]
        return " — ".join(part for part in parts if part)

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        metrics = QFontMetrics(option.font)
        lines = 2 if (self._second_line(index) or index.data(Role.REMOVED)) else 1
        return QSize(200, metrics.height() * lines + (lines - 1) * 2 + 2 * PADDING)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        painter.save()
        style = option.widget.style() if option.widget else None
        if style is not None:
            style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter, option.widget)
        palette = colors()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        text_color = option.palette.highlightedText().color() if selected else option.palette.text().color()
        metrics = QFontMetrics(option.font)
        rect = QRectF(option.rect).adjusted(PADDING, PADDING, -PADDING, -PADDING)
        line_height = metrics.height()
        first = QRectF(rect.left(), rect.top(), rect.width(), line_height)
        x = first.left()

        removed = bool(index.data(Role.REMOVED))
        mode = index.data(Role.MODE)
        score = index.data(Role.SCORE)
        badges: list[tuple[str, str]] = []
        if removed:
            badges.append(("Removed", "removed"))
        if index.data(Role.PINNED):
            badges.append(("Pinned", "pinned"))
        if mode:
            badges.append((MODE_LABELS.get(mode, mode), mode))
        elif self.show_miss_badge:
            badges.append(("Not included", "miss"))
        if score is not None:  # as its reason shows it: never rounded up to a floor it failed
            badges.append((str(index.data(Role.SCORE_TEXT) or f"{score:.2f}"), "score"))
        if state := index.data(Role.STATE):  # what a request carried of a skill
            badges.append((f"{state[:1].upper()}{state[1:]}", STATE_BADGES.get(state, "score")))
        # A tool's hints from its server: only the two that change how to treat it.
        for hint in index.data(Role.HINTS) or ():
            if hint in ("read-only", "destructive"):
                badges.append((hint, hint))
        badge_font = QFont(option.font)
        badge_font.setPointSizeF(max(7.0, option.font.pointSizeF() * 0.85))
        badge_font.setBold(True)
        badge_metrics = QFontMetrics(badge_font)
        badges_width = sum(badge_metrics.horizontalAdvance(t) + 12 + 4 for t, _ in badges)

        name_font = QFont(option.font)
        name_font.setBold(True)
        name_font.setStrikeOut(removed)
        name = str(index.data(Role.NAME) or "")
        name_metrics = QFontMetrics(name_font)
        # In a narrow column the name comes first: a "Not included" badge (its list's heading
        # says so already), then the server or priority prefix (in the tooltip), give way to it,
        # and the token cost moves down to the second line when there is one.
        # Up to sixteen wide letters: names of one pack differ in the middle
        # (google-calendar-automation, google-meet-automation), which a cut there would hide.
        legible = min(name_metrics.horizontalAdvance(name), name_metrics.horizontalAdvance("M" * 16))
        second = self._second_line(index)
        if removed and not second:
            second = "No longer in the agent"
        tokens = index.data(Role.TOKENS)
        cost = f"{tokens:,} tok" if tokens is not None else ""
        cost_width = metrics.horizontalAdvance(cost) + 4 if cost else 0
        cost_below = bool(cost and second) and first.width() - cost_width - 6 - badges_width - 6 < legible
        right = first.right()
        if cost and not cost_below:
            painter.setFont(option.font)
            painter.setPen(text_color if selected else palette_color(palette.muted))
            painter.drawText(
                QRectF(right - cost_width, first.top(), cost_width, line_height),
                Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight,
                cost,
            )
            right -= cost_width + 6

        painter.setFont(name_font)
        painter.setPen(text_color)
        prefix = index.data(Role.PREFIX) or ""
        mono = QFont(option.font)
        mono.setFamily("monospace")
        mono.setStyleHint(QFont.StyleHint.Monospace)
        prefix_width = QFontMetrics(mono).horizontalAdvance(prefix) + 6 if prefix else 0
        badges, keep_prefix, badges_below = make_room_for_name(
            right - x - 6,
            legible,
            prefix_width,
            [(badge, badge_metrics.horizontalAdvance(badge[0]) + 12 + 4) for badge in badges],
            room_below=bool(second),
        )
        badges_width = sum(badge_metrics.horizontalAdvance(t) + 12 + 4 for t, _ in badges)
        if not keep_prefix:
            prefix, prefix_width = "", 0
        if prefix:
            painter.setFont(mono)
            painter.setPen(option.palette.placeholderText().color() if not selected else text_color)
            painter.drawText(
                QRectF(x, first.top(), prefix_width, line_height), Qt.AlignmentFlag.AlignVCenter, prefix
            )
            x += prefix_width
            painter.setFont(name_font)
            painter.setPen(text_color)
        available = max(20.0, right - x - badges_width - 6)
        # Names that start alike (read_text_file, read_multiple_files) differ at the end: cut the
        # middle so each stays told apart (the tooltip has it whole). A memory's words read on.
        ref = index.data(Role.REF)
        middle = ref is None or ref.type != "memory"
        mode = Qt.TextElideMode.ElideMiddle if middle else Qt.TextElideMode.ElideRight
        elided = name_metrics.elidedText(name, mode, int(available))
        name_width = name_metrics.horizontalAdvance(elided)
        painter.drawText(
            QRectF(x, first.top(), available, line_height), Qt.AlignmentFlag.AlignVCenter, elided
        )
        x += name_width + 8
        for text, kind in badges:
            x += paint_badge(painter, QRectF(x, first.top(), 0, line_height), text, kind, option.font) + 4

        if second:
            painter.setFont(option.font)
            painter.setPen(text_color if selected else palette_color(palette.muted))
            line = QRectF(rect.left(), first.bottom() + 2, rect.width(), line_height)
            if cost_below:
                painter.drawText(line, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, cost)
                line.setRight(line.right() - cost_width - 6)
            for text, kind in badges_below:
                width = paint_badge(
                    painter, QRectF(line.left(), line.top(), 0, line_height), text, kind, option.font
                )
                line.setLeft(line.left() + width + 4)
            if badges_below:
                line.setLeft(line.left() + 4)
                painter.setFont(option.font)
                painter.setPen(text_color if selected else palette_color(palette.muted))
            painter.drawText(
                line,
                Qt.AlignmentFlag.AlignVCenter,
                metrics.elidedText(second, Qt.TextElideMode.ElideRight, int(line.width())),
            )
        painter.restore()


def make_room_for_name(
    space: float,
    legible: float,
    prefix_width: float,
    badges: list[tuple[tuple[str, str], float]],
    room_below: bool = False,
) -> tuple[list[tuple[str, str]], bool, list[tuple[str, str]]]:
    """The badges to paint beside the name, whether to paint the prefix, and the badges to paint
    at the start of the second line, so that a name gets ``legible`` of a row's ``space``
    (``badges``: each with its width). A "Not included" badge goes first (its list's heading says
    so already); then, in a row with a second line (``room_below``), the badges move down to it;
    then the prefix goes (the tooltip has it)."""
    kept = list(badges)
    below: list[tuple[tuple[str, str], float]] = []

    def left() -> float:
        return space - prefix_width - sum(width for _, width in kept)

    if left() < legible:
        kept = [(badge, width) for badge, width in kept if badge[1] != "miss"]
    if left() < legible and room_below:
        below, kept = kept, []
    keep_prefix = prefix_width == 0 or left() >= legible
    return [badge for badge, _ in kept], keep_prefix, [badge for badge, _ in below]


def palette_color(value: str) -> QColor:
    return QColor(value)
