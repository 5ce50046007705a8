"""A workflow run, state by state: live while it runs (with Stop and its approvals), or as stored.

Selecting a step shows what it did (StepDetails); an assistant step's View Context opens on the
request its chat made, and any step can be run again from, with the store and history it had.
"""

from __future__ import annotations

from dataclasses import replace
from html import escape
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QSize, Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from agent_core.chat.events import ApprovalDecision, ApprovalRequest
from agent_core.context.items import RequestContext
from agent_core.errors import ContextDeskError
from agent_core.store.chats import StoredMessage, ToolCallRecord
from agent_core.workflows.events import StepStarted
from agent_core.workflows.records import StepRecord, WorkflowRunRecord
from desktop.bridge import CoreBridge
from desktop.controllers.workflow_runner import WorkflowRun, load_run
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.dialogs.model_limit import ModelLimitPrompt
from desktop.models.conversation_entries import Entry
from desktop.models.workflow_steps import StepColumn, WorkflowStepsModel, shown_value
from desktop.theme import colors
from desktop.views.approval_widget import ApprovalWidget
from desktop.views.tables import row_table
from desktop.views.window_geometry import fit_size
from desktop.views.workflow_step_details import StepDetails

__all__ = ["WorkflowApprovalWidget", "WorkflowRunDialog"]


class WorkflowApprovalWidget(ApprovalWidget):
    """The chat's approval prompt, worded for a workflow's gate (``approve: true``) when it is one."""

    def set_entry(self, entry: Entry) -> None:
        super().set_entry(entry)
        request = entry.approval
        if request is None or request.server != "workflow":
            return
        self.question.setText(
            f"The workflow <b>{escape(request.origin)}</b> asks before it runs the state "
            f"<b>{escape(request.tool)}</b>. Run it?"
        )
        task = escape(str(request.arguments.get("task", ""))).replace("\n", "<br>")
        self.arguments.setText(task)  # the card's arguments are rich text: the task as written
        self.allow_chat.hide()


class WorkflowRunDialog(QDialog):
    rerun_requested = Signal(object)  # StepRecord: run again from it (the input is ``given``)
    transcript_requested = Signal(str, str)  # an assistant step's chat id, a title

    def __init__(
        self, bridge: CoreBridge, host: WorkspaceHost, workflow_name: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.host = host
        self.workflow_name = workflow_name
        self.run: WorkflowRun | None = None
        self.model_limit_prompt: ModelLimitPrompt | None = None
        self.record: WorkflowRunRecord | None = None
        self.given: Any = None
        self.last_context_dialog: Any = None
        self.setWindowTitle(f"Workflow run — {workflow_name}")
        fit_size(self, QSize(1180, 760))
        palette = colors()
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.heading = QLabel(f"<b>{workflow_name}</b>")
        self.heading.setTextFormat(Qt.TextFormat.RichText)
        self.heading.setStyleSheet("font-size: 15px;")
        top.addWidget(self.heading, 1)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Cancel the run and the chats of its assistant states")
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.hide()
        top.addWidget(self.stop_button)
        layout.addLayout(top)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # errors quote model output and files
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setStyleSheet(f"color: {palette.muted};")
        layout.addWidget(self.status)
        self.approvals = QVBoxLayout()
        layout.addLayout(self.approvals)
        self.approval_widgets: list[WorkflowApprovalWidget] = []

        splitter = QSplitter(Qt.Orientation.Horizontal)
        self.model = WorkflowStepsModel(self)
        self.table = row_table(self.model, StepColumn.NEXT)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._show_selected())
        self.model.dataChanged.connect(lambda *_: self._show_selected())
        for signal in (self.model.rowsInserted, self.model.modelReset, self.model.dataChanged):
            signal.connect(lambda *_: self._fit_columns())
        self.table.setColumnHidden(StepColumn.ITEM, True)
        splitter.addWidget(self.table)
        self.details = StepDetails()
        splitter.addWidget(self.details)
        splitter.setSizes([470, 690])
        layout.addWidget(splitter, 1)

        buttons = QHBoxLayout()
        self.context_button = QPushButton("View Context")
        self.context_button.setToolTip("What this assistant step's request held: rules, references, tools")
        self.chat_button = QPushButton("Open its chat")
        self.chat_button.setToolTip("The chat this assistant step ran in, read-only")
        self.rerun_button = QPushButton("Re-run from this state")
        self.rerun_button.setToolTip(
            "A new run that starts at this state with the store and history it had here"
        )
        close = QPushButton("Close")
        for button in (self.context_button, self.chat_button, self.rerun_button, close):
            button.setAutoDefault(False)
        self.context_button.clicked.connect(self.view_context)
        self.chat_button.clicked.connect(self._open_chat)
        self.rerun_button.clicked.connect(self._rerun)
        close.clicked.connect(self.close)
        buttons.addWidget(self.context_button)
        buttons.addWidget(self.chat_button)
        buttons.addWidget(self.rerun_button)
        buttons.addStretch(1)
        buttons.addWidget(close)
        layout.addLayout(buttons)
        self._update_buttons()

    # --- what the dialog shows ------------------------------------------------------------------

    def follow(self, run: WorkflowRun) -> None:
        """Show ``run`` live: each step as it starts and ends, its approvals, Stop."""
        self.run = run
        self.given = run.given
        run.step_started.connect(self._step_started)
        run.step_finished.connect(self._step_finished)
        run.approval_requested.connect(self._ask)
        run.progress.connect(self.status.setText)
        run.finished.connect(self._finished)
        run.failed.connect(self._failed)
        run.model_limit_warned.connect(self._limit_prompt)
        resumed = f" from state {run.resume_from.state_id}" if run.resume_from is not None else ""
        self.heading.setText(f"<b>{self.workflow_name}</b> · running{resumed}")
        self.status.setText("Starting…")
        self.stop_button.show()

    def _limit_prompt(self, warning: str) -> None:
        run = self.run
        if run is None:
            return
        self.status.setText("Waiting for your answer: the model may not manage this workflow.")
        prompt = ModelLimitPrompt(warning, self)
        prompt.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        prompt.run_anyway.connect(lambda: run.answer_limit(True))
        prompt.pick_another.connect(lambda: run.answer_limit(False))
        self.model_limit_prompt = prompt
        prompt.open()

    def show_stored(self, run_id: str) -> None:
        """Read a stored run (off the GUI thread) and show it."""
        workspace = self.host.workspace
        if workspace is None:
            return
        self.status.setText("Loading the run…")

        def loaded(record: WorkflowRunRecord | None) -> None:
            if record is None:
                self._failed(f"No run has the id {run_id}: it may have been deleted.")
                return
            self.model.load(record.steps)
            self._show_record(record)

        self.bridge.call(load_run, workspace.store.path, run_id, on_result=loaded, on_error=self._error)

    def _show_record(self, record: WorkflowRunRecord) -> None:
        self.record = record
        self.given = record.input
        mocked = " · mock outputs" if record.mocked else ""
        self.heading.setText(f"<b>{record.workflow}</b> · run {record.id} · {record.status}{mocked}")
        steps = len(record.steps)
        tokens = sum((s.usage.input_tokens or 0) + (s.usage.output_tokens or 0) for s in record.steps)
        took = f" in {record.finished_at - record.started_at:.2f} s" if record.finished_at else ""
        # An Autonomous run's supervisor ends with its answer (in the store as ``result``).
        answer = record.store.get("result") if any(s.delegated for s in record.steps) else None
        self.status.setText(
            f"{steps} step{'s' if steps != 1 else ''} · {tokens:,} tokens{took}"
            + (f" · the supervisor's answer: {shown_value(answer, 300)}" if answer else "")
            + (f" · {record.error}" if record.error else "")
        )
        palette = colors()
        self.status.setStyleSheet(f"color: {palette.error if record.error else palette.muted};")
        self.stop_button.hide()
        self._update_buttons()

    # --- live events ----------------------------------------------------------------------------

    def _step_started(self, event: StepStarted) -> None:
        self.model.step_started(event)
        item = f" (item {event.item!r})" if event.item is not None else ""
        self.status.setText(f"{event.state_id}{item} is running…")
        if not self.table.selectionModel().hasSelection():
            self._show_selected()

    def _step_finished(self, step: StepRecord) -> None:
        self.model.step_finished(step)

    def _finished(self, record: WorkflowRunRecord) -> None:
        self.model.mark_stopped()
        for widget in self.approval_widgets:
            entry = widget.entry
            if entry is not None and entry.decision is None:
                widget.set_entry(replace(entry, status="cancelled"))
        self._show_record(record)

    def _failed(self, reason: str) -> None:
        self.model.mark_stopped()
        self.stop_button.hide()
        self.heading.setText(f"<b>{self.workflow_name}</b> · could not run")
        self.status.setText(reason)
        self.status.setStyleSheet(f"color: {colors().error};")
        self._update_buttons()

    def _error(self, error: BaseException) -> None:
        self._failed(str(error) if isinstance(error, ContextDeskError) else repr(error))

    def _fit_columns(self) -> None:
        # The Item column only matters for states that run once per item; the header does not
        # resize to rows added after it was first shown, so it is asked to.
        self.table.setColumnHidden(StepColumn.ITEM, not self.model.has_items())
        header = self.table.horizontalHeader()
        header.resizeSections(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(StepColumn.NEXT, QHeaderView.ResizeMode.Stretch)

    def _ask(self, request: ApprovalRequest) -> None:
        entry = Entry(
            "approval",
            f"{request.server}.{request.tool}",
            status="pending",
            call_id=request.call_id,
            approval=request,
            tool_call=ToolCallRecord(request.call_id, request.server, request.tool, request.arguments),
        )
        widget = WorkflowApprovalWidget(entry)
        widget.decided.connect(lambda decision, w=widget: self._decide(w, decision))
        self.approval_widgets.append(widget)
        self.approvals.addWidget(widget)
        gate = request.server == "workflow"
        self.status.setText(
            f"{request.tool} waits for your answer above."
            if gate
            else f"{request.origin or 'An assistant'} asks to run {request.server}.{request.tool}: answer above."
        )

    def _decide(self, widget: WorkflowApprovalWidget, decision: ApprovalDecision) -> None:
        entry = widget.entry
        if entry is None or entry.approval is None or entry.decision is not None:
            return
        entry.approval.decide(decision)
        widget.set_entry(replace(entry, decision=decision, status=decision.value))

    def stop(self) -> None:
        if self.run is not None and self.run.running:
            self.stop_button.setEnabled(False)
            self.status.setText("Stopping…")
            self.run.stop()

    # --- the selected step ----------------------------------------------------------------------

    def selected_row(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else None

    def selected_step(self) -> StepRecord | None:
        row = self.selected_row()
        return None if row is None else self.model.step_at(row)

    def select_row(self, row: int) -> None:
        self.table.selectionModel().select(
            self.model.index(row, 0),
            QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
        )

    def _show_selected(self) -> None:
        row = self.selected_row()
        shown = self.model.row_at(row) if row is not None else None
        if shown is None:
            running = self.model.row_at(self.model.rowCount() - 1)
            state = running.state_id if running is not None and running.status == "running" else ""
            self.details.show_step(None, running_state=state)
        else:
            self.details.show_step(shown.record, running_state=shown.state_id)
        self._update_buttons()

    def _update_buttons(self) -> None:
        step = self.selected_step()
        assistant = step is not None and step.kind == "assistant"
        self.context_button.setEnabled(
            assistant and (step.request_context is not None or bool(step.child_session_id))  # type: ignore[union-attr]
        )
        self.chat_button.setEnabled(step is not None and bool(step.child_session_id))
        # A delegation is the supervisor's decision, not a state to start a run from.
        self.rerun_button.setEnabled(
            step is not None and not step.delegated and self.host.workspace is not None
        )

    def _rerun(self) -> None:
        step = self.selected_step()
        if step is not None:
            self.rerun_requested.emit(step)

    def _open_chat(self) -> None:
        step = self.selected_step()
        if step is not None and step.child_session_id:
            self.transcript_requested.emit(step.child_session_id, f"{self.workflow_name} · {step.state_id}")

    def view_context(self) -> None:
        """View Context of the selected assistant step: the request its chat made."""
        step = self.selected_step()
        workspace = self.host.workspace
        if step is None or workspace is None:
            return
        if step.request_context is not None:
            self._open_context(step.request_context, step.state_id)
            return

        def loaded(messages: list[StoredMessage]) -> None:
            context = next((m.request_context for m in reversed(messages) if m.request_context), None)
            if context is None:
                self.status.setText(f"The chat of {step.state_id} has no recorded request to show.")
            else:
                self._open_context(context, step.state_id)

        self.bridge.call(
            workspace.store.messages, step.child_session_id, on_result=loaded, on_error=self._error
        )

    def _open_context(self, context: RequestContext, state_id: str) -> None:
        from desktop.dialogs.subagent_section import SubagentHooks
        from desktop.dialogs.view_context import ViewContextDialog

        workspace = self.host.workspace
        dialog = ViewContextDialog(
            context,
            workspace.agent if workspace is not None else None,
            self.host.tools.tools(),
            self,
            subagents=SubagentHooks(None, lambda _call: None, self.transcript_requested.emit),
            heading=f"What the state {state_id} of {self.workflow_name} used",
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.last_context_dialog = dialog
        dialog.open()

    def closeEvent(self, event: QCloseEvent) -> None:
        # A run left without its window could wait forever on an approval nobody sees: closing
        # stops it (what it did so far is stored, and opens again from the past runs).
        self.stop()
        super().closeEvent(event)
