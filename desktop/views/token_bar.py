"""Token bars: the stacked breakdown of one request (View Context) and the chat's context gauge."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPaintEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from agent_core.context.items import ContextManifest, RequestContext
from desktop.models.manifest import (
    GaugeLevel,
    breakdown,
    describe_totals,
    gauge_level,
    gauge_tooltip,
    image_lines,
    manifest_level,
    trimmed_lines,
)
from desktop.theme import colors

__all__ = ["LEVEL_COLORS", "ContextGauge", "StackedTokenBar", "TokenSummary"]

LEVEL_COLORS: dict[GaugeLevel, str] = {
    "empty": "#a1a1aa",
    "ok": "#16a34a",
    "warn": "#d97706",
    "over": "#dc2626",
}
BAR_HEIGHT = 14


def _track_color() -> QColor:
    return QColor(colors().border)


class StackedTokenBar(QWidget):
    """One segment per kind of part, on a track as long as the room (window minus reply reserve)."""

    def __init__(self, manifest: ContextManifest, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.manifest = manifest
        self.segments = breakdown(manifest)
        self.setMinimumHeight(BAR_HEIGHT)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setToolTip(gauge_tooltip(manifest))

    def sizeHint(self) -> QSize:
        return QSize(400, BAR_HEIGHT)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_track_color())
        painter.drawRoundedRect(rect, 4, 4)
        scale = max(self.manifest.budget, self.manifest.total_tokens, 1)
        x = rect.left()
        painter.setClipRect(rect)
        for group, tokens in self.segments:
            width = rect.width() * tokens / scale
            painter.setBrush(QColor(group.color))
            painter.drawRect(QRectF(x, rect.top(), width, rect.height()))
            x += width
        painter.end()


class TokenSummary(QWidget):
    """The top of View Context: totals, the stacked bar with its legend, and what was trimmed."""

    def __init__(self, context: RequestContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        palette = colors()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.setSpacing(4)
        manifest = context.manifest
        self.totals = QLabel()
        self.totals.setWordWrap(True)
        layout.addWidget(self.totals)
        self.bar: StackedTokenBar | None = None
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.trimmed = QLabel()
        self.trimmed.setWordWrap(True)
        self.trimmed.setTextFormat(Qt.TextFormat.RichText)
        self.trimmed.setStyleSheet(f"color: {palette.muted};")
        self.images = QLabel()  # what became of each image of a tool result, when there are any
        self.images.setWordWrap(True)
        self.images.setTextFormat(Qt.TextFormat.RichText)
        self.images.setStyleSheet(f"color: {palette.muted};")
        self.images.hide()
        if manifest is None:
            if context.notes.budget:  # a what-if whose request could not be built (nothing was sent)
                unrecorded = f"No request could be built with these changes: {context.notes.budget}"
            elif context.workflow_runs and not context.usage.input_tokens:
                unrecorded = (
                    "No model was asked for this reply: you ran a workflow, whose states made their own "
                    "requests (below)."
                )
            else:
                unrecorded = "Token counts were not recorded for this reply (it was sent before they were)."
            self.totals.setText(unrecorded)
            self.totals.setWordWrap(True)
            self.totals.setStyleSheet(f"color: {palette.muted};")
            self.legend.hide()
            self.trimmed.hide()
            return
        if images := image_lines(manifest):
            self.images.setText(
                "<b>Images of tool results:</b><br>" + "<br>".join(escape(line) for line in images)
            )
            self.images.show()
        share = manifest.used_share
        level = gauge_level(context)
        self.totals.setText(
            f"<b style='color:{LEVEL_COLORS[level]}'>{share:.0%}</b> &nbsp;{describe_totals(manifest)}"
        )
        self.totals.setTextFormat(Qt.TextFormat.RichText)
        self.bar = StackedTokenBar(manifest)
        layout.addWidget(self.bar)
        self.legend.setText(
            " &nbsp; ".join(
                f"<span style='color:{group.color}'>■</span> {group.label} {tokens:,}"
                for group, tokens in self.bar.segments
            )
        )
        layout.addWidget(self.legend)
        lines = trimmed_lines(manifest)
        self.trimmed.setText(
            "<b>Trimmed to fit:</b> " + "; ".join(lines) if lines else "Nothing was trimmed to fit."
        )
        layout.addWidget(self.trimmed)
        layout.addWidget(self.images)


class _GaugeBar(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.share = 0.0
        self.color = QColor(LEVEL_COLORS["empty"])
        self.setFixedHeight(8)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect())
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(_track_color())
        painter.drawRoundedRect(rect, 4, 4)
        if self.share > 0:
            painter.setBrush(self.color)
            width = max(rect.height(), rect.width() * min(self.share, 1.0))  # a sliver still reads as a bar
            painter.drawRoundedRect(QRectF(rect.left(), rect.top(), width, rect.height()), 4, 4)
        painter.end()


class ContextGauge(QWidget):
    """How full the chat's context is: what the next request would send (an estimate from the last
    request's figures and the history now), green, amber past 60%, red past 85%."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        header = QHBoxLayout()
        title = QLabel("Context window")
        title.setStyleSheet("font-weight: 600;")
        self.share_label = QLabel()
        # Room for "100%" in bold, whatever it shows now: a rich-text label measured before its
        # bold text arrived was cut to "5" at some widths.
        bold = QFont(self.share_label.font())
        bold.setBold(True)
        self.share_label.setMinimumWidth(QFontMetrics(bold).horizontalAdvance("100%") + 4)
        self.share_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        header.addWidget(title)
        header.addStretch(1)
        header.addWidget(self.share_label)
        layout.addLayout(header)
        self.bar = _GaugeBar()
        layout.addWidget(self.bar)
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.caption.setStyleSheet(f"color: {colors().muted};")
        layout.addWidget(self.caption)
        self.level: GaugeLevel = "empty"
        self.set_context(None)

    def set_estimate(self, manifest: ContextManifest, before: ContextManifest | None = None) -> None:
        """Show what the next request would cost with the history as it is now, and ``before``,
        the same estimate made just before a compaction (the number the gauge showed then)."""
        self._show(manifest)
        total = f"About {manifest.total_tokens:,} of {manifest.budget:,} tokens for the next message"
        if any(action.kind == "history_dropped" for action in manifest.trimmed):
            # The estimate trims the history as the request will; say so, or the bar looks too low.
            total += ", with some earlier messages left out to fit (hover for which)"
        if before is None:
            self.caption.setText(f"{total} (estimated; View Context has each reply's exact figures)")
        else:
            self.caption.setText(
                f"{total}, {before.total_tokens:,} ({before.used_share:.0%}) before compacting "
                "(both estimated the same way)"
            )

    def set_context(self, context: RequestContext | None) -> None:
        """Show the last request's fill; ``None`` before the first reply."""
        self._show(None if context is None else context.manifest)
        if context is None:
            self.caption.setText("Fills after the first reply.")
        elif context.manifest is None and context.workflow_runs:
            # /run as the chat's first message: its states made their own requests, the chat none.
            self.caption.setText(
                "Fills after the model's first reply (a workflow run sends no request of its own)."
            )
        elif context.manifest is None:
            self.caption.setText("The last reply has no token counts.")

    def _show(self, manifest: ContextManifest | None) -> None:
        self.level = manifest_level(manifest)
        color = LEVEL_COLORS[self.level]
        self.bar.color = QColor(color)
        if manifest is None:
            self.bar.share = 0.0
            self.share_label.setText("")
            self.setToolTip("How much of the model's context window the next request will use.")
        else:
            self.bar.share = manifest.used_share
            self.share_label.setText(f"<b style='color:{color}'>{manifest.used_share:.0%}</b>")
            how = "" if manifest.exact else " (estimated)"
            self.caption.setText(f"{manifest.total_tokens:,} of {manifest.budget:,} tokens{how}")
            self.setToolTip(gauge_tooltip(manifest))
        self.bar.update()
