"""The Workflows tab's Run page: a run of the selected workflow started from a form built from its
``inputs`` (with mock outputs or every approval allowed, if asked), and its past runs; each run,
new or past, opens in its own run view."""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.agent import Agent
from agent_core.errors import ContextDeskError
from agent_core.workflows.inputs import initial_store
from agent_core.workflows.records import StepRecord, WorkflowRunRecord
from desktop.bridge import CoreBridge, Generation
from desktop.controllers.workflow_runner import WorkflowRun, load_runs
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.dialogs.workflow_run import WorkflowRunDialog
from desktop.models.workflow_runs import WorkflowRunsModel
from desktop.models.workflows import WorkflowEntry
from desktop.theme import colors
from desktop.views.tables import row_table
from desktop.views.workflow_input_form import WorkflowInputForm, parse_mock_outputs

__all__ = ["WorkflowRunTab"]


class RunTabPanel(Protocol):
    """The Workflows panel, as its Run page asks it for the chosen workflow and shows failures."""

    agent: Agent | None

    def selected_entry(self) -> WorkflowEntry | None: ...

    def show_failure(self, error: BaseException) -> None: ...


class WorkflowRunTab(QWidget):
    transcript_requested = Signal(str, str)  # an assistant step's chat id, a title

    def __init__(self, bridge: CoreBridge, host: WorkspaceHost, panel: RunTabPanel) -> None:
        super().__init__()
        self.bridge, self.host, self._panel = bridge, host, panel
        self.runs_model = WorkflowRunsModel(self)
        self._runs_generation = Generation()
        self.run_dialogs: list[WorkflowRunDialog] = []
        layout = QVBoxLayout(self)
        heading = QLabel("Input")
        heading.setStyleSheet("font-weight: 600;")
        layout.addWidget(heading)
        self.form = WorkflowInputForm()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.form)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        layout.addWidget(scroll, 2)
        self.use_mocks = QCheckBox("Answer assistant states from mock outputs (no model is asked)")
        self.use_mocks.setToolTip(
            "For trying a workflow, and for reproducible bug reports: the run is marked as mocked"
        )
        self.mock_outputs = QPlainTextEdit()
        self.mock_outputs.setPlaceholderText('[{"state_id": "outline", "output": {"points": ["a", "b"]}}]')
        self.mock_outputs.setMaximumHeight(80)
        self.mock_outputs.hide()
        self.use_mocks.toggled.connect(self.mock_outputs.setVisible)
        self.allow_all = QCheckBox("Allow every approval without asking")
        self.allow_all.setToolTip(
            "As `workflow run --yes`: gated states and tool calls that need approval run without a prompt"
        )
        layout.addWidget(self.use_mocks)
        layout.addWidget(self.mock_outputs)
        layout.addWidget(self.allow_all)
        run_row = QHBoxLayout()
        self.run_status = QLabel()
        self.run_status.setWordWrap(True)
        self.run_status.setTextFormat(Qt.TextFormat.PlainText)
        run_row.addWidget(self.run_status, 1)
        self.run_button = QPushButton("Run")
        self.run_button.setToolTip("Run the saved workflow with this input; the run opens in its own window")
        self.run_button.clicked.connect(self.run_workflow)
        run_row.addWidget(self.run_button)
        layout.addLayout(run_row)
        runs_title = QLabel("Past runs")
        runs_title.setStyleSheet("font-weight: 600; margin-top: 8px;")
        layout.addWidget(runs_title)
        self.runs = row_table(self.runs_model)
        self.runs.doubleClicked.connect(lambda index: self.open_run(index.row()))
        layout.addWidget(self.runs, 3)
        runs_row = QHBoxLayout()
        runs_row.addStretch(1)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh_runs)
        self.open_button = QPushButton("Open run")
        self.open_button.clicked.connect(self._open_selected_run)
        runs_row.addWidget(self.refresh_button)
        runs_row.addWidget(self.open_button)
        layout.addLayout(runs_row)

    def show_entry(self, entry: WorkflowEntry | None) -> None:
        """The form of the selected workflow's inputs (none for a file left out)."""
        workflow = entry.workflow if entry is not None else None
        self.form.set_inputs(workflow.spec.inputs if workflow is not None else {})
        self.run_status.clear()
        self.update_buttons(entry)

    def update_buttons(self, entry: WorkflowEntry | None) -> None:
        runnable = entry is not None and entry.workflow is not None and self.host.workspace is not None
        self.run_button.setEnabled(runnable)
        self.open_button.setEnabled(entry is not None)
        self.refresh_button.setEnabled(entry is not None)

    # --- runs ---------------------------------------------------------------------------------

    def run_workflow(self) -> WorkflowRunDialog | None:
        """Check the form's input against the declared inputs, then start the run in a run view."""
        entry = self._panel.selected_entry()
        if entry is None or entry.workflow is None:
            self._say_run("Select a workflow without errors to run it.", error=True)
            return None
        if entry.errors:
            self._say_run(
                f"Not started: {entry.name} has {entry.errors} error{'s' if entry.errors > 1 else ''} "
                "(see Edit): fix them and save, then run it.",
                error=True,
            )
            return None
        try:
            given = self.form.value()
            initial_store(given, entry.workflow.spec.inputs)
            mocks = (
                parse_mock_outputs(self.mock_outputs.toPlainText()) if self.use_mocks.isChecked() else None
            )
        except ContextDeskError as error:
            self._say_run(f"Not started: {error}", error=True)
            return None
        return self.start_run(entry.name, given, mock_outputs=mocks)

    def start_run(
        self,
        name: str,
        given: Any,
        resume_from: StepRecord | None = None,
        mock_outputs: list[dict[str, Any]] | None = None,
    ) -> WorkflowRunDialog | None:
        """A run of the workflow ``name`` (from ``resume_from``'s state, with its store), in a new run view."""
        workspace = self.host.workspace
        if workspace is None:
            self._say_run("The agent is still opening: try again in a moment.", error=True)
            return None
        dialog = WorkflowRunDialog(self.bridge, self.host, name, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        run = WorkflowRun(
            self.bridge,
            workspace,
            name,
            given,
            resume_from=resume_from,
            mock_outputs=mock_outputs,
            auto_approve=self.allow_all.isChecked(),
            parent=self,  # not the dialog: its events may still arrive after the window is gone
        )
        run.finished.connect(run.deleteLater)
        run.failed.connect(run.deleteLater)
        dialog.follow(run)
        try:
            run.start()
        except ContextDeskError as error:
            run.deleteLater()
            dialog.deleteLater()
            self._say_run(str(error), error=True)
            return None
        self._keep(dialog)
        run.finished.connect(lambda record: self._run_ended(name, record))
        self._say_run(f"{name} is running in its own window.")
        dialog.show()
        return dialog

    def _run_ended(self, name: str, record: WorkflowRunRecord) -> None:
        detail = f" — {record.error}" if record.error and record.error != record.status else ""
        self._say_run(
            f"The last run of {name}: {record.status}{detail}.",
            error=record.status in ("failed", "needs_review"),
        )
        self.refresh_runs()

    def rerun(self, name: str, given: Any, step: StepRecord) -> WorkflowRunDialog | None:
        """Run again from ``step``'s state; with the Run tab's mock outputs when those are on."""
        mocks = None
        if self.use_mocks.isChecked():
            try:
                mocks = parse_mock_outputs(self.mock_outputs.toPlainText())
            except ContextDeskError as error:
                self._say_run(f"Not started: {error}", error=True)
                return None
        return self.start_run(name, given, step, mock_outputs=mocks)

    def open_run(self, row: int) -> WorkflowRunDialog | None:
        """A stored run in a run view."""
        record: WorkflowRunRecord | None = self.runs_model.run_at(row)
        if record is None:
            return None
        return self.open_stored_run(record.id, record.workflow)

    def open_stored_run(self, run_id: str, workflow: str) -> WorkflowRunDialog:
        """The run ``run_id`` of ``workflow`` in a run view (from this panel or a chat's View Context)."""
        dialog = WorkflowRunDialog(self.bridge, self.host, workflow, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show_stored(run_id)
        self._keep(dialog)
        dialog.show()
        return dialog

    def _open_selected_run(self) -> None:
        rows = self.runs.selectionModel().selectedRows()
        if rows:
            self.open_run(rows[0].row())
        else:
            self._say_run("Select a past run to open it.", error=True)

    def _keep(self, dialog: WorkflowRunDialog) -> None:
        name = dialog.workflow_name
        dialog.rerun_requested.connect(lambda step, d=dialog: self.rerun(name, d.given, step))
        dialog.transcript_requested.connect(self.transcript_requested)
        dialog.destroyed.connect(lambda *_args, d=dialog: self._forget(d))
        self.run_dialogs.append(dialog)

    def _forget(self, dialog: WorkflowRunDialog) -> None:
        if dialog in self.run_dialogs:
            self.run_dialogs.remove(dialog)

    @property
    def last_run_dialog(self) -> WorkflowRunDialog | None:
        return self.run_dialogs[-1] if self.run_dialogs else None

    def refresh_runs(self) -> None:
        """The selected workflow's past runs, read off the GUI thread (a stale answer is dropped)."""
        entry, agent, workspace = self._panel.selected_entry(), self._panel.agent, self.host.workspace
        token = self._runs_generation.next()
        if entry is None or workspace is None or agent is None:
            self.runs_model.set_runs([])
            return

        def loaded(runs: list[WorkflowRunRecord]) -> None:
            if self._runs_generation.is_current(token):
                self.runs_model.set_runs(runs)

        self.bridge.call(
            load_runs, workspace.store.path, str(agent.root), entry.name,
            on_result=loaded, on_error=self._panel.show_failure,
        )  # fmt: skip

    def _say_run(self, text: str, *, error: bool = False) -> None:
        palette = colors()
        self.run_status.setText(text)
        self.run_status.setStyleSheet(f"color: {palette.error if error else palette.muted};")
