"""What-if: rebuild a reply's context with other selection settings or items toggled, off the GUI
thread, and compare it with the original side by side before resending."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListView,
    QPushButton,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from agent_core.context.items import ItemRef, RequestContext
from agent_core.errors import ContextDeskError
from desktop.controllers.chat_controller import ChatController
from desktop.models.manifest import ComparisonModel, group_delta, total_line
from desktop.models.what_if import ResendEffects, ToggleItemsModel, resend_effects
from desktop.theme import colors
from desktop.views.token_bar import TokenSummary
from desktop.views.window_geometry import fit_size

__all__ = ["STRATEGIES", "WhatIfDialog", "without_mentions"]

STRATEGIES = (("hybrid", "Hybrid (dense + lexical)"), ("anchor", "Anchor (TsAgent's ranking)"))


class WhatIfDialog(QDialog):
    """Controls on the left; the original and the what-if side by side on the right."""

    resend_requested = Signal(object, object, object, str)  # selection dict, include, exclude, text
    compared = Signal()  # a what-if result is shown

    def __init__(
        self,
        controller: ChatController,
        message_id: int,
        original: RequestContext,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.message_id = message_id
        self.original = original
        self.what_if_result: RequestContext | None = None
        self.question = controller.question_of(message_id)
        self.setWindowTitle("What if…")
        fit_size(self, QSize(1180, 680))
        palette = colors()
        root = QVBoxLayout(self)
        root.setContentsMargins(16, 14, 16, 12)
        heading = QLabel("What if this message were answered with other settings?")
        heading.setStyleSheet("font-size: 17px; font-weight: 600;")
        root.addWidget(heading)
        asked = QLabel(f"“{_elide(self.question or '', 180)}”" if self.question else "")
        asked.setWordWrap(True)
        asked.setStyleSheet(f"color: {palette.muted};")
        root.addWidget(asked)

        body = QHBoxLayout()
        body.setSpacing(16)
        controls = QVBoxLayout()
        selection_box = QGroupBox("Selection")
        form = QFormLayout(selection_box)
        run = original.selection
        self.top_k = QSpinBox()
        self.top_k.setRange(1, 1000)
        self.top_k.setValue(run.top_k)
        self.top_n = QSpinBox()
        self.top_n.setRange(0, 100)
        self.top_n.setValue(run.top_n)
        self.include_score = QDoubleSpinBox()
        self.include_score.setRange(0.0, 1.0)
        self.include_score.setSingleStep(0.05)
        self.include_score.setValue(run.include_score)
        self.strategy = QComboBox()
        for value, label in STRATEGIES:
            self.strategy.addItem(label, value)
        current = (
            controller.session.selection_settings.strategy
            if run.strategy not in dict(STRATEGIES)
            else run.strategy
        )
        self.strategy.setCurrentIndex(max(0, self.strategy.findData(current)))
        form.addRow("Top K", self.top_k)
        form.addRow("Top N", self.top_n)
        form.addRow("Include score", self.include_score)
        form.addRow("Strategy", self.strategy)
        controls.addWidget(selection_box)
        items_box = QGroupBox("Items (uncheck to leave out, check to include)")
        items_layout = QVBoxLayout(items_box)
        self.items = ToggleItemsModel(original, self, controller.session.memory_texts(original))
        self.items_view = QListView()
        self.items_view.setModel(self.items)
        self.items_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        items_layout.addWidget(self.items_view)
        controls.addWidget(items_box, 1)
        self.compare_button = QPushButton("Compare")
        self.compare_button.setDefault(True)
        self.compare_button.setToolTip("Rebuild the context with these settings; nothing is sent or saved")
        self.compare_button.clicked.connect(self.run)
        controls.addWidget(self.compare_button)
        left = QWidget()
        left.setLayout(controls)
        left.setMaximumWidth(380)
        body.addWidget(left)

        sides = QVBoxLayout()
        columns = QHBoxLayout()
        self.original_side = _Side("Original", original)
        self.what_if_side = _Side("What-if", None)
        columns.addWidget(self.original_side, 1)
        columns.addWidget(self.what_if_side, 1)
        sides.addLayout(columns)
        self.delta = QLabel()
        self.delta.setWordWrap(True)
        self.delta.setTextFormat(Qt.TextFormat.RichText)
        sides.addWidget(self.delta)
        self.comparison = ComparisonModel(self)
        self.table = QTableView()
        self.table.setModel(self.comparison)
        self.table.verticalHeader().hide()
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setShowGrid(False)
        sides.addWidget(self.table, 1)
        body.addLayout(sides, 1)
        root.addLayout(body, 1)

        self.status = QLabel("Change settings or items, then Compare.")
        self.status.setWordWrap(True)
        self.status.setStyleSheet(f"color: {palette.muted};")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.resend_button = QPushButton("Resend")
        self.resend_button.setEnabled(False)
        self.resend_button.clicked.connect(self._resend)
        buttons.addButton(self.resend_button, QDialogButtonBox.ButtonRole.ActionRole)
        # Resending makes the what-if the chat's: said before it is done, and kept up to date.
        self.resend_effects = QLabel()
        self.resend_effects.setWordWrap(True)
        root.addWidget(self.resend_effects)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(buttons)
        root.addLayout(bottom)
        for changed in (self.top_k.valueChanged, self.top_n.valueChanged, self.include_score.valueChanged):
            changed.connect(self._show_resend_effects)
        self.strategy.currentIndexChanged.connect(self._show_resend_effects)
        self.items.dataChanged.connect(self._show_resend_effects)
        self._show_resend_effects()

    # --- running ------------------------------------------------------------------------------

    def selection(self) -> dict[str, Any]:
        return {
            "top_k": self.top_k.value(),
            "top_n": self.top_n.value(),
            "include_score": round(self.include_score.value(), 2),
            "strategy": self.strategy.currentData(),
        }

    def effects(self) -> ResendEffects:
        """What Resend would do to the chat with the settings and items as they are now."""
        session = self.controller.session
        return resend_effects(
            session.selection_settings.model_dump(),
            self.selection(),
            self.items.included_rows(),
            self.items.excluded_rows(),
            {item.ref for item in session.items},
        )

    def _show_resend_effects(self) -> None:
        effects = self.effects()
        self.resend_button.setText(effects.button_text())
        self.resend_button.setToolTip(effects.summary())
        self.resend_effects.setText(effects.summary())

    def run(self) -> None:
        """Ask the core for the what-if context; only the newest answer is shown."""
        self.status.setText("Rebuilding the context… (nothing is sent)")
        self.compare_button.setEnabled(False)
        self.controller.what_if(
            self.message_id,
            self.selection(),
            self.items.include(),
            self.items.exclude(),
            self._show,
            self._failed,
        )

    def _show(self, context: RequestContext) -> None:
        self.what_if_result = context
        self.compare_button.setEnabled(True)
        self.what_if_side.set_context(context)
        self.comparison.set_contexts(self.original, context)
        rows = self.comparison.rows()
        added = sum(1 for r in rows if r.change == "added")
        removed = sum(1 for r in rows if r.change == "removed")
        self.delta.setText(_delta_text(self.original, context, added, removed))
        problem = context.notes.budget
        self.status.setText(problem or "Compared. Nothing was sent or saved.")
        # A request that cannot be built (it would not fit the window, say) would fail the same
        # way when resent: the button waits for changes that fit.
        self.resend_button.setEnabled(self.question is not None and not problem)
        if problem:
            self.resend_button.setToolTip(f"Not with these changes: {problem}")
        self.compared.emit()

    def _failed(self, error: BaseException) -> None:
        self.compare_button.setEnabled(True)
        reason = str(error) if isinstance(error, ContextDeskError) else repr(error)
        self.status.setText(f"The what-if failed: {reason}")

    def _resend(self) -> None:
        if self.question is None:
            return
        include: list[ItemRef] = self.items.include()
        exclude: list[ItemRef] = self.items.exclude()
        # An @mention would add a left-out item straight back: the resent text drops it.
        text = without_mentions(self.question, exclude)
        self.resend_requested.emit(self.selection(), include, exclude, text)
        self.accept()


class _Side(QWidget):
    """One side of the comparison: its totals and stacked bar."""

    def __init__(self, title: str, context: RequestContext | None) -> None:
        super().__init__()
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        label = QLabel(title)
        label.setStyleSheet("font-size: 15px; font-weight: 600;")
        self.layout_.addWidget(label)
        self.summary: TokenSummary | None = None
        self.placeholder = QLabel("Not compared yet.")
        self.placeholder.setStyleSheet(f"color: {colors().muted};")
        self.layout_.addWidget(self.placeholder)
        self.layout_.addStretch(1)
        if context is not None:
            self.set_context(context)

    def set_context(self, context: RequestContext) -> None:
        if self.summary is not None:
            self.layout_.removeWidget(self.summary)
            self.summary.hide()  # at once: deleteLater waits for the event loop
            self.summary.deleteLater()
        self.placeholder.hide()
        self.summary = TokenSummary(context)
        self.layout_.insertWidget(1, self.summary)


def _delta_text(original: RequestContext, what_if: RequestContext, added: int, removed: int) -> str:
    parts = [total_line("Original", original), total_line("What-if", what_if)]
    if original.manifest is not None and what_if.manifest is not None:
        change = what_if.manifest.total_tokens - original.manifest.total_tokens
        parts.append(f"<b>{change:+,} tokens</b>")
    parts.append(
        f"<span style='color:#16a34a'>{added} added</span>, <span style='color:#dc2626'>{removed} removed</span>"
    )
    # Without both requests' token counts there is nothing to compare ("Rules 209→0" was shown
    # when the what-if's request could not be built).
    both = original.manifest is not None and what_if.manifest is not None
    groups = [
        f"{label} {before:,}→{after:,}"
        for label, before, after in group_delta(original.manifest, what_if.manifest)
        if both and before != after
    ]
    text = " · ".join(parts)
    if groups:
        text += "<br>Changed: " + ", ".join(groups)
    return text


def without_mentions(text: str, refs: Iterable[ItemRef]) -> str:
    """``text`` without the ``@rule:``/``@ref:`` mentions of ``refs``."""
    for ref in refs:
        prefixes = {"rule": "rule", "reference": "ref|reference"}.get(ref.type)
        if prefixes:
            text = re.sub(rf"(?<!\S)@(?:{prefixes}):{re.escape(ref.name)}(?!\S)\s*", "", text)
    return text.strip()


def _elide(text: str, length: int) -> str:
    return text if len(text) <= length else text[: length - 1] + "…"
