"""The Workflows tab of the management window: the agent's workflows (those with problems too) and
their states; a workflow's YAML edited with the static check's problems at their lines; a run
started from a form built from its ``inputs``; and its past runs, each opening in a run view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.agent import Agent
from agent_core.errors import ContextDeskError
from agent_core.workflows.inputs import initial_store
from agent_core.workflows.records import StepRecord, WorkflowRunRecord
from desktop.bridge import CoreBridge, Generation
from desktop.controllers.workflow_files import (
    check_workflow_text,
    delete_workflow,
    problems_of,
    save_workflow,
    template_for,
    workflow_path,
)
from desktop.controllers.workflow_runner import WorkflowRun, load_runs
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.dialogs.workflow_run import WorkflowRunDialog
from desktop.models.workflow_runs import WorkflowRunsModel
from desktop.models.workflows import (
    WorkflowEntry,
    WorkflowsColumn,
    WorkflowsModel,
    WorkflowStatesModel,
    workflow_entries,
)
from desktop.theme import colors
from desktop.views.tables import row_table
from desktop.views.workflow_editor import WorkflowEditor
from desktop.views.workflow_input_form import WorkflowInputForm, parse_mock_outputs

__all__ = ["WorkflowsPanel"]


class WorkflowsPanel(QWidget):
    saved = Signal()  # a file was written or deleted: the agent is to be reloaded
    transcript_requested = Signal(str, str)  # an assistant step's chat id, a title

    def __init__(self, bridge: CoreBridge, host: WorkspaceHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.host = host
        self.agent: Agent | None = None
        self.model = WorkflowsModel(self)
        self.states_model = WorkflowStatesModel(self)
        self.runs_model = WorkflowRunsModel(self)
        self._editing: Path | None = None  # the file in the editor
        self._confirm_delete = False
        self._restoring = False
        self._runs_generation = Generation()
        self._file_generation = Generation()
        self.run_dialogs: list[WorkflowRunDialog] = []
        layout = QVBoxLayout(self)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        layout.addWidget(splitter, 1)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        self.table = row_table(self.model)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._on_selected())
        left_layout.addWidget(self.table, 2)
        self.states_title = QLabel("States")
        self.states_title.setStyleSheet("font-weight: 600;")
        left_layout.addWidget(self.states_title)
        self.states = row_table(self.states_model)
        left_layout.addWidget(self.states, 2)
        new_row = QHBoxLayout()
        self.new_name = QLineEdit()
        self.new_name.setPlaceholderText("new workflow name, e.g. review-code")
        self.new_button = QPushButton("New from template")
        self.new_button.clicked.connect(self.new_from_template)
        self.new_name.returnPressed.connect(self.new_from_template)
        new_row.addWidget(self.new_name, 1)
        new_row.addWidget(self.new_button)
        left_layout.addLayout(new_row)
        splitter.addWidget(left)

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        self.file_label = QLabel("Select a workflow, or make a new one.")
        self.file_label.setStyleSheet("font-weight: 600;")
        right_layout.addWidget(self.file_label)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.hide()
        right_layout.addWidget(self.message)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._edit_tab(), "Edit")
        self.tabs.addTab(self._run_tab(), "Run")
        right_layout.addWidget(self.tabs, 1)
        splitter.addWidget(right)
        splitter.setSizes([420, 680])
        self._update_buttons()

    def _edit_tab(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        self.editor = WorkflowEditor()
        layout.addWidget(self.editor, 1)
        buttons = QHBoxLayout()
        self.check_button = QPushButton("Check")
        self.check_button.setToolTip("Run the static check on the text as it is now, without saving")
        self.delete_button = QPushButton("Delete")
        self.save_button = QPushButton("Save")
        self.save_button.setToolTip("Save the file (problems or not) and check it with the agent")
        self.check_button.clicked.connect(self.check)
        self.delete_button.clicked.connect(self.delete)
        self.save_button.clicked.connect(self.save)
        buttons.addWidget(self.check_button)
        buttons.addStretch(1)
        buttons.addWidget(self.delete_button)
        buttons.addWidget(self.save_button)
        layout.addLayout(buttons)
        return page

    def _run_tab(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
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
        return page

    # --- the list -----------------------------------------------------------------------------

    def set_agent(self, agent: Agent) -> None:
        """The agent (re)loaded: list its workflows again and show the editing file's problems."""
        self.agent = agent
        self.model.set_entries(workflow_entries(agent))
        if self._editing is not None:
            row = self.model.row_of(self._editing)
            if row is not None:
                # Selecting it again must not read the file back over unsaved edits.
                self._restoring = True
                self.table.selectRow(row)
                self._restoring = False
            self._show_entry(self.model.entry_at(row) if row is not None else None)
            self.editor.set_problems(problems_of(agent, self._editing), checked="the saved file")
        self._update_buttons()

    def selected_entry(self) -> WorkflowEntry | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.entry_at(rows[0].row()) if rows else None

    def select(self, name: str) -> None:
        row = next(
            (
                r
                for r in range(self.model.rowCount())
                if self.model.index(r, WorkflowsColumn.NAME).data() == name
            ),
            None,
        )
        if row is not None:
            self.table.selectRow(row)

    def _on_selected(self) -> None:
        entry = self.selected_entry()
        if entry is None or self._restoring:
            return
        path = entry.path
        token = self._file_generation.next()

        def shown(text: str) -> None:
            if not self._file_generation.is_current(token):
                return  # another workflow was selected since
            self._edit_file(path, text)
            if self.agent is not None:
                self.editor.set_problems(problems_of(self.agent, path), checked="the saved file")

        self.bridge.call(path.read_text, "utf-8", on_result=shown, on_error=self._failed)
        self._show_entry(entry)
        self.refresh_runs()

    def _show_entry(self, entry: WorkflowEntry | None) -> None:
        """The states and the input form of the selected workflow (none for a file left out)."""
        workflow = entry.workflow if entry is not None else None
        self.states_model.set_states(list(workflow.spec.states) if workflow is not None else [])
        self.states_title.setText(
            f"States of {entry.name}" if workflow is not None and entry is not None
            else "States (fix the file's errors to see them)" if entry is not None
            else "States"
        )  # fmt: skip
        self.form.set_inputs(workflow.spec.inputs if workflow is not None else {})
        self.run_status.clear()
        self._update_buttons()

    def _edit_file(self, path: Path, text: str) -> None:
        self._editing = path
        self._confirm_delete = False
        shown = (
            path.relative_to(self.agent.root) if self.agent and path.is_relative_to(self.agent.root) else path
        )
        self.file_label.setText(str(shown))
        self.editor.text.setPlainText(text)
        self.message.hide()
        self._update_buttons()

    def new_from_template(self) -> None:
        name = self.new_name.text().strip()
        if self.agent is None:
            return
        if not name:
            self._say("Type a name for the new workflow first.", error=True)
            return
        try:
            path = workflow_path(self.agent.root, name)
        except ContextDeskError as error:
            self._say(f"{error}.", error=True)
            return
        if path.exists() or name in self.agent.workflows:
            self._say(f"There is already a workflow named {name}: pick another name.", error=True)
            return
        self.table.clearSelection()
        self._edit_file(path, template_for(name))
        self._show_entry(None)
        self.editor.set_problems(None)
        self.file_label.setText(f"workflows/{name}.yaml (new, not saved yet)")
        self.new_name.clear()

    # --- editing ------------------------------------------------------------------------------

    def check(self) -> None:
        """The static check on the text as it is now (on the core thread: it parses and walks)."""
        if self.agent is None or self._editing is None:
            return

        def checked(problems: list[Any]) -> None:
            self.editor.set_problems(problems, checked="the text as it is now")

        self.bridge.call(
            check_workflow_text, self.agent, self._editing, self.editor.text.toPlainText(),
            on_result=checked, on_error=self._failed,
        )  # fmt: skip

    def save(self) -> None:
        if self._editing is None:
            return
        path, text = self._editing, self.editor.text.toPlainText()

        def done(_: None) -> None:
            self.file_label.setText(f"{self.file_label.text().split(' (')[0]} (saved; checking…)")
            self.saved.emit()

        self.bridge.call(save_workflow, path, text, on_result=done, on_error=self._failed)

    def delete(self) -> None:
        if self._editing is None:
            return
        if not self._confirm_delete:
            self._confirm_delete = True
            self.delete_button.setText(f"Click again to delete {self._editing.name}")
            return
        path = self._editing

        def done(_: None) -> None:
            self._editing = None
            self.editor.text.clear()
            self.editor.set_problems(None)
            self.file_label.setText(f"{path.name} deleted.")
            self._show_entry(None)
            self.saved.emit()

        self.bridge.call(delete_workflow, path, on_result=done, on_error=self._failed)

    def _update_buttons(self) -> None:
        editing = self._editing is not None
        for button in (self.save_button, self.check_button, self.delete_button):
            button.setEnabled(editing)
        if not self._confirm_delete:
            self.delete_button.setText("Delete")
        entry = self.selected_entry()
        runnable = entry is not None and entry.workflow is not None and self.host.workspace is not None
        self.run_button.setEnabled(runnable)
        self.open_button.setEnabled(entry is not None)
        self.refresh_button.setEnabled(entry is not None)

    # --- runs ---------------------------------------------------------------------------------

    def run_workflow(self) -> WorkflowRunDialog | None:
        """Check the form's input against the declared inputs, then start the run in a run view."""
        entry = self.selected_entry()
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
        self._say_run(f"The last run of {name}: {record.status}{detail}.", error=record.status == "failed")
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
        entry, workspace = self.selected_entry(), self.host.workspace
        token = self._runs_generation.next()
        if entry is None or workspace is None or self.agent is None:
            self.runs_model.set_runs([])
            return

        def loaded(runs: list[WorkflowRunRecord]) -> None:
            if self._runs_generation.is_current(token):
                self.runs_model.set_runs(runs)

        self.bridge.call(
            load_runs, workspace.store.path, str(self.agent.root), entry.name,
            on_result=loaded, on_error=self._failed,
        )  # fmt: skip

    # --- messages -----------------------------------------------------------------------------

    def _say(self, text: str, *, error: bool = False) -> None:
        palette = colors()
        self.message.setText(text)
        self.message.setStyleSheet(f"color: {palette.error if error else palette.muted};")
        self.message.show()

    def _say_run(self, text: str, *, error: bool = False) -> None:
        palette = colors()
        self.run_status.setText(text)
        self.run_status.setStyleSheet(f"color: {palette.error if error else palette.muted};")

    def _failed(self, error: BaseException) -> None:
        self._say(str(error) if isinstance(error, ContextDeskError) else repr(error), error=True)
