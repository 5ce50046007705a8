"""A tool call in the transcript: one line with its state (and its server's progress while it
runs), expanding to its arguments and result; rich results (structured content, images, audio,
resources) under the line."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from agent_core.store.records import ToolCallRecord
from desktop.models.conversation_entries import Entry
from desktop.models.tool_outcomes import TOOL_STATUS_TEXT, Tone, tone_of
from desktop.theme import colors
from desktop.views.app_slot import AppSlot
from desktop.views.entry_widget import EntryWidget, disclosure_toggle, fit_box, json_text
from desktop.views.rich_result import RichResultView

__all__ = ["ToolCallWidget"]


class ToolCallWidget(EntryWidget):
    """A tool call, collapsed to one line; expands to its arguments and result or error. What the
    result held beyond text (structured content, images, audio, resources) shows under the line."""

    resource_open_requested = Signal(object)  # ResultResource
    resource_attach_requested = Signal(object)  # ResultResource
    save_failed = Signal(str)
    # The call has a UI (MCP App): (its record, the slot for its view, whether it was just made).
    app_slot_ready = Signal(object, object, bool)
    DIM_BY_OPACITY = False  # its structured result is a table, its app a web view

    def __init__(self, entry: Entry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rich: RichResultView | None = None
        self.app_slot: AppSlot | None = None
        palette = colors()
        self.setObjectName("toolcall")
        self.setStyleSheet(f"#toolcall {{ border: 1px solid {palette.border}; border-radius: 8px; }}")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setSpacing(4)
        self.toggle = disclosure_toggle()
        self.toggle.toggled.connect(self._expand)
        layout.addWidget(self.toggle)
        # What the server reports of a running call: a bar when it knows the total, busy otherwise.
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self.progress.setFixedHeight(6)
        self.progress.hide()
        layout.addWidget(self.progress)
        self.details = QWidget()
        details = QVBoxLayout(self.details)
        details.setContentsMargins(20, 0, 0, 4)
        self.arguments = self._code_box()
        self.result = self._code_box()
        self._result_label = QLabel("Result")
        details.addWidget(QLabel("Arguments"))
        details.addWidget(self.arguments)
        details.addWidget(self._result_label)
        details.addWidget(self.result)
        self.details.hide()
        layout.addWidget(self.details)
        self._layout = layout
        self.set_entry(entry)

    def _code_box(self) -> QPlainTextEdit:
        box = QPlainTextEdit()
        box.setReadOnly(True)
        box.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        font = box.font()
        font.setFamily("monospace")
        font.setStyleHint(font.StyleHint.Monospace)
        box.setFont(font)
        return box

    def set_entry(self, entry: Entry) -> None:
        previous = self.entry
        super().set_entry(entry)
        record = entry.tool_call
        name = f"{record.server}.{record.tool}" if record and record.server else entry.text
        status = TOOL_STATUS_TEXT.get(entry.status, entry.status)
        elapsed = ""
        if record is not None and record.elapsed_seconds is not None:
            elapsed = f" in {record.elapsed_seconds:.2f} s"
        activity = f"  ({entry.activity})" if entry.activity else ""
        self.toggle.setText(f"Tool  {name}  —  {status}{elapsed}{activity}")
        self._show_progress(entry)
        if previous is not None and (previous.status, previous.tool_call) == (entry.status, record):
            return  # a progress report: only the line and the bar change (a style sheet costs a restyle)
        self.toggle.setStyleSheet(_tone_style(tone_of(entry.status)))
        if record is not None:
            self.arguments.setPlainText(json_text(dict(record.arguments)))
            self.result.setPlainText(record.result)
            fit_box(self.arguments)
            fit_box(self.result)
            # A denied call did not fail: its "result" is what the model was told instead.
            label = "Error" if record.is_error else "Result"
            self._result_label.setText("Told to the model" if entry.status == "denied" else label)
            self._result_label.setVisible(bool(record.result))
            self.result.setVisible(bool(record.result))
            self._show_rich(record)
            self._offer_app(record, live=previous is not None and previous.status == "running")

    def _show_rich(self, record: ToolCallRecord) -> None:
        """Build the rich view once the record has rich parts (rebuilt only when they change)."""
        if self.rich is not None and self.rich.record == record:
            return
        if self.rich is not None:
            self.rich.deleteLater()
            self.rich = None
        if record.structured is None and not record.parts and not record.structured_problem:
            return
        self.rich = RichResultView(record)
        self.rich.setContentsMargins(20, 0, 0, 4)
        self.rich.resource_open_requested.connect(self.resource_open_requested)
        self.rich.resource_attach_requested.connect(self.resource_attach_requested)
        self.rich.save_failed.connect(self.save_failed)
        self._layout.insertWidget(1, self.rich)

    def _offer_app(self, record: ToolCallRecord, live: bool) -> None:
        """A finished call to a tool with a UI: a place for its view under the line (once)."""
        if self.app_slot is not None or record.ui_resource_uri is None or self.entry is None:
            return
        if self.entry.status not in ("done", "failed"):
            return
        self.app_slot = AppSlot()
        self._layout.addWidget(self.app_slot)
        self.app_slot_ready.emit(record, self.app_slot, live)

    def _expand(self, expanded: bool) -> None:
        self.details.setVisible(expanded)

    def _show_progress(self, entry: Entry) -> None:
        reported = entry.progress if entry.status == "running" else None
        self.progress.setVisible(reported is not None)
        if reported is None:
            return
        fraction = reported.fraction
        if fraction is None:
            self.progress.setRange(0, 0)  # busy: the server does not say how much is left
        else:
            self.progress.setRange(0, 1000)
            self.progress.setValue(round(fraction * 1000))
        self.progress.setToolTip(reported.describe())


def _tone_style(tone: Tone) -> str:
    palette = colors()
    return {"error": f"color: {palette.error};", "warning": f"color: {palette.warning};"}.get(tone, "")
