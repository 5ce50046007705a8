"""One step of a workflow run, in full: what it did to the context store (keys added, changed and
removed, with their size in tokens and their values), the rendered task or tool arguments it ran
with, its raw and parsed output, and its error."""

from __future__ import annotations

import json
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from agent_core.workflows.records import StepRecord
from desktop.models.workflow_steps import StoreDiffColumn, StoreDiffModel, shown_value
from desktop.theme import colors

__all__ = ["StepDetails"]


def _text_box() -> QPlainTextEdit:
    box = QPlainTextEdit()
    box.setReadOnly(True)
    box.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    return box


class StepDetails(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        palette = colors()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel("Select a step to see what it got and returned.")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        layout.addWidget(self.title)
        self.produced = QLabel()  # what produced the step's output, in one line
        self.produced.setWordWrap(True)
        self.produced.setTextFormat(Qt.TextFormat.PlainText)
        self.produced.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.produced)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.setStyleSheet(f"color: {palette.error};")
        self.error.hide()
        layout.addWidget(self.error)
        self.diff_title = QLabel("Context store changes")
        self.diff_title.setStyleSheet("font-weight: 600;")
        layout.addWidget(self.diff_title)
        self.diff_model = StoreDiffModel(self)
        self.diff = QTableView()
        self.diff.setModel(self.diff_model)
        self.diff.verticalHeader().hide()
        self.diff.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.diff.setWordWrap(False)
        header = self.diff.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(StoreDiffColumn.AFTER, QHeaderView.ResizeMode.Stretch)
        self.diff.setMaximumHeight(150)
        layout.addWidget(self.diff)
        self.tabs = QTabWidget()
        self.task = _text_box()
        self.raw_output = _text_box()
        self.parsed_output = _text_box()
        self.store_after = _text_box()
        self.tabs.addTab(self.task, "Rendered task")
        self.tabs.addTab(self.raw_output, "Raw output")
        self.tabs.addTab(self.parsed_output, "Parsed output")
        self.tabs.addTab(self.store_after, "Store after")
        layout.addWidget(self.tabs, 1)
        self.show_step(None)

    def show_step(self, step: StepRecord | None, *, running_state: str = "") -> None:
        """Show ``step`` (None: nothing selected, or ``running_state`` still running)."""
        self.diff_model.set_step(step)
        for box in (self.task, self.raw_output, self.parsed_output, self.store_after):
            box.clear()
        self.error.setVisible(step is not None and bool(step.error))
        provenance = step.provenance if step is not None else None
        self.produced.setText(f"Produced by {provenance.line()}" if provenance is not None else "")
        self.produced.setVisible(provenance is not None)
        self.diff_title.setText("Context store changes")
        if step is None:
            self.title.setText(
                f"<b>{escape(running_state)}</b> is running…"
                if running_state
                else "Select a step to see what it got and returned."
            )
            return
        item = f" · item {shown_value(step.item, 60)}" if step.item is not None else ""
        rest = f"{item} · {step.kind} · {step.status} · parsed as {step.parse_path or '—'}"
        if step.delegated:  # an Autonomous run's: the assistant, the task given, the result
            rest = f" · delegated by the supervisor · {step.kind} · {step.status}"
        self.title.setText(
            f"<b>{escape(step.state_id)}</b>{escape(rest)} · next: {escape(step.next_state or '—')}"
        )
        self.error.setText(step.error)
        if not self.diff_model.rowCount():
            self.diff_title.setText("Context store changes: none")
        if step.rendered_args is not None:
            self.tabs.setTabText(0, "Tool arguments")
            self.task.setPlainText(json.dumps(step.rendered_args, ensure_ascii=False, indent=2, default=str))
        else:
            self.tabs.setTabText(0, "Task given" if step.delegated else "Rendered task")
            self.task.setPlainText(step.rendered_task)
        self.tabs.setTabText(1, "Result" if step.delegated else "Raw output")
        self.raw_output.setPlainText(step.raw_output)
        parsed = step.parsed_output
        self.parsed_output.setPlainText(
            parsed
            if isinstance(parsed, str)
            else json.dumps(parsed, ensure_ascii=False, indent=2, default=str)
        )
        self.store_after.setPlainText(json.dumps(step.store_after, ensure_ascii=False, indent=2, default=str))
