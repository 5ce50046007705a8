"""A sub-agent's tool call in the transcript: what it was asked, how it is doing (turns, tokens,
time, what it is doing now) while it runs, how it ended, and buttons to stop it or open its chat."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop.models.conversation_entries import Entry
from desktop.models.subagent_runs import describe_run_state
from desktop.theme import colors
from desktop.views.common import Badge
from desktop.views.entry_widget import EntryWidget

__all__ = ["SubagentCallWidget"]


class SubagentCallWidget(EntryWidget):
    cancel_requested = Signal(str)  # call id
    transcript_requested = Signal(str, str)  # child chat id, a title for it

    def __init__(self, entry: Entry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        palette = colors()
        self.setObjectName("subagentCall")
        self.setStyleSheet(
            f"#subagentCall {{ border: 1px solid {palette.border}; border-radius: 8px;"
            f" background-color: {palette.inline_code_background}; }}"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(3)
        top = QHBoxLayout()
        self.badge = Badge("Sub-agent", "score")
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.RichText)
        top.addWidget(self.badge, 0)
        top.addWidget(self.title, 1)
        self.cancel_button = QPushButton("Stop")
        self.cancel_button.setToolTip("Stop this sub-agent; the reply goes on with what it has so far")
        self.transcript_button = QPushButton("Open its chat")
        self.transcript_button.setToolTip("The sub-agent's own chat: every request it made, with its context")
        for button in (self.cancel_button, self.transcript_button):
            button.setAutoDefault(False)
            top.addWidget(button)
        layout.addLayout(top)
        self.task = QLabel()
        self.task.setWordWrap(True)
        self.task.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.task)
        self.state = QLabel()
        self.state.setWordWrap(True)
        self.state.setStyleSheet(f"color: {palette.muted};")
        layout.addWidget(self.state)
        # What produced its result, from its own tool calls: a result no tool backs says so.
        self.produced = QLabel()
        self.produced.setWordWrap(True)
        self.produced.setTextFormat(Qt.TextFormat.PlainText)
        self.produced.setStyleSheet(f"color: {palette.muted};")
        layout.addWidget(self.produced)
        self.cancel_button.clicked.connect(self._cancel)
        self.transcript_button.clicked.connect(self._open)
        self.set_entry(entry)

    def set_entry(self, entry: Entry) -> None:
        super().set_entry(entry)
        run = entry.subagent
        record = entry.tool_call
        name = run.subagent if run else (record.tool if record else entry.text)
        mode = f" · {run.context_mode} context" if run else ""
        self.title.setText(f"<b>{escape(name)}</b>{escape(mode)}")
        task = run.task if run else str((record.arguments if record else {}).get("task", ""))
        self.task.setText(f"Task: {' '.join(task.split())}" if task else "")
        if run is None:
            self.state.setText("starting…" if entry.status in ("running", "pending") else entry.status)
        else:
            note = f" — {run.note}" if run.note and run.status != "running" else ""
            self.state.setText(describe_run_state(run) + note)
        provenance = run.provenance if run is not None and run.status != "running" else None
        self.produced.setText(f"Produced by {provenance.line()}" if provenance is not None else "")
        self.produced.setVisible(provenance is not None)
        running = run is not None and run.status == "running" and entry.status == "running"
        self.cancel_button.setVisible(running)
        self.transcript_button.setVisible(run is not None)

    def _cancel(self) -> None:
        if self.entry is not None and self.entry.call_id:
            self.cancel_button.setEnabled(False)
            self.state.setText(self.state.text() + " · stopping…")
            self.cancel_requested.emit(self.entry.call_id)

    def _open(self) -> None:
        run = self.entry.subagent if self.entry is not None else None
        if run is not None:
            self.transcript_requested.emit(
                run.child_session_id, f"{run.path}: {' '.join(run.task.split())[:60]}"
            )
