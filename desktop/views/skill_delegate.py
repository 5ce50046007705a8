"""Paints a skill row: its title (with its folder's name beside it, muted, when they differ) and badges
at the right ("⚠ n" trust warnings, "In chat" or "Loaded", "Scripts", the include mode or "Off"),
and its description on a second line. Every row is the same height, so a list of a
thousand skills lays out without measuring each one."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QFont, QFontMetrics, QPainter
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from desktop.models.context_items import MODE_LABELS
from desktop.models.skills_model import SkillRole
from desktop.theme import colors
from desktop.views.common import paint_badge
from desktop.views.item_delegate import palette_color

__all__ = ["SkillDelegate", "skill_badges"]

Index = QModelIndex | QPersistentModelIndex
PADDING = 6
BADGE_GAP = 4


def skill_badges(index: Index) -> list[tuple[str, str]]:
    """(text, colour kind) of the badges a skill row shows, left to right."""
    badges: list[tuple[str, str]] = []
    if warnings := index.data(SkillRole.WARNINGS):  # what a reviewer should read before trusting it
        badges.append((f"⚠ {len(warnings)}", "destructive"))
    in_chat = index.data(SkillRole.IN_CHAT)
    if in_chat:  # its body is in every request of the open chat
        badges.append(("Loaded" if in_chat == "loaded" else "In chat", "skill"))
    if index.data(SkillRole.HAS_SCRIPTS):
        badges.append(("Scripts", "miss"))
    if index.data(SkillRole.ENABLED) is False:
        badges.append(("Off", "removed"))
    else:
        mode = str(index.data(SkillRole.INCLUDE) or "")
        if mode:
            badges.append((MODE_LABELS.get(mode, mode), mode))
    return badges


class SkillDelegate(QStyledItemDelegate):
    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        height = QFontMetrics(option.font).height()
        return QSize(200, height * 2 + 2 + 2 * PADDING)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        painter.save()
        style = option.widget.style() if option.widget else None
        if style is not None:
            style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter, option.widget)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        text_color = option.palette.highlightedText().color() if selected else option.palette.text().color()
        muted = text_color if selected else palette_color(colors().muted)
        enabled = index.data(SkillRole.ENABLED) is not False
        metrics = QFontMetrics(option.font)
        line_height = metrics.height()
        rect = QRectF(option.rect).adjusted(PADDING + 2, PADDING, -PADDING, -PADDING)
        first = QRectF(rect.left(), rect.top(), rect.width(), line_height)

        badge_font = QFont(option.font)
        badge_font.setPointSizeF(max(7.0, option.font.pointSizeF() * 0.85))
        badge_font.setBold(True)
        badge_metrics = QFontMetrics(badge_font)
        badges = skill_badges(index)
        widths = [badge_metrics.horizontalAdvance(text) + 12 for text, _ in badges]
        badges_width = sum(widths) + BADGE_GAP * len(badges)
        x = first.right() - badges_width + BADGE_GAP
        for (text, kind), width in zip(badges, widths, strict=True):
            paint_badge(painter, QRectF(x, first.top(), width, line_height), text, kind, option.font)
            x += width + BADGE_GAP

        title_font = QFont(option.font)
        title_font.setBold(True)
        painter.setFont(title_font)
        painter.setPen(text_color if enabled else muted)
        room = max(20.0, first.width() - badges_width - 6)
        title_metrics = QFontMetrics(title_font)
        title = str(index.data(SkillRole.TITLE) or "")
        # The folder's name always shows beside a title of the header's own: it is the skill's
        # real name, so it gets its room first (up to half the row) and the title is cut.
        folder = str(index.data(SkillRole.OTHER_FOLDER) or "")
        folder_text = f"({folder})" if folder else ""
        folder_width = min(float(metrics.horizontalAdvance(folder_text)), room / 2) if folder else 0.0
        title_room = max(10.0, room - (folder_width + 6 if folder else 0))
        title = title_metrics.elidedText(title, Qt.TextElideMode.ElideRight, int(title_room))
        painter.drawText(
            QRectF(first.left(), first.top(), title_room, line_height), Qt.AlignmentFlag.AlignVCenter, title
        )
        if folder:
            painter.setFont(option.font)
            painter.setPen(muted)
            left = first.left() + title_metrics.horizontalAdvance(title) + 6
            painter.drawText(
                QRectF(left, first.top(), folder_width + 1, line_height),
                Qt.AlignmentFlag.AlignVCenter,
                metrics.elidedText(folder_text, Qt.TextElideMode.ElideMiddle, int(folder_width) + 1),
            )

        description = str(index.data(SkillRole.DESCRIPTION) or "") or "No description"
        painter.setFont(option.font)
        painter.setPen(muted)
        second = QRectF(rect.left(), first.bottom() + 2, rect.width(), line_height)
        painter.drawText(
            second,
            Qt.AlignmentFlag.AlignVCenter,
            metrics.elidedText(description, Qt.TextElideMode.ElideRight, int(second.width())),
        )
        painter.restore()
