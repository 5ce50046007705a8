"""The Workflows tab of the management window: the agent-file editor over ``workflows/NAME.yaml``
(those with problems too, saved problems or not) with the static check's problems at their lines,
the states of the chosen workflow, and its Run page (a run form and past runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.agent import Agent
from agent_core.agent.workflow_files.files import (
    check_workflow_text,
    delete_workflow,
    problems_of,
    save_workflow,
    template_for,
    workflow_path,
)
from desktop.bridge import CoreBridge
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.models.workflows import (
    WorkflowEntry,
    WorkflowsColumn,
    WorkflowsModel,
    WorkflowStatesModel,
    shown_states,
    workflow_entries,
)
from desktop.theme import colors
from desktop.views.agent_file_panel import AgentFileKind, AgentFilePanel
from desktop.views.tables import row_table
from desktop.views.workflow_editor import WorkflowEditor
from desktop.views.workflow_run_tab import WorkflowRunTab

__all__ = ["WORKFLOW_FILES", "WorkflowsPanel"]

WORKFLOW_FILES = AgentFileKind(
    noun="workflow",
    model=WorkflowsModel,
    new_name_hint="new workflow name, e.g. review-code",
    path_of=workflow_path,
    template=template_for,
    loaded=lambda agent: agent.workflows,
    save=lambda _root, path, text: save_workflow(path, text),
    delete=lambda _root, path: delete_workflow(path),
    saved_note="saved; checking…",
)


class WorkflowsPanel(AgentFilePanel):
    model: WorkflowsModel

    def __init__(self, bridge: CoreBridge, host: WorkspaceHost, parent: QWidget | None = None) -> None:
        super().__init__(bridge, host, WORKFLOW_FILES, parent)
        self.states_model = WorkflowStatesModel(self)
        self.list_layout.setStretchFactor(self.table, 2)
        self.states_title = QLabel("States")
        self.states_title.setStyleSheet("font-weight: 600;")
        self.list_layout.insertWidget(1, self.states_title)
        self.states = row_table(self.states_model)
        self.list_layout.insertWidget(2, self.states, 2)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.hide()
        self.body_layout.addWidget(self.message)
        self.run_tab = WorkflowRunTab(bridge, host, self)
        self.run_tab.transcript_requested.connect(self.transcript_requested)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._edit_tab(), "Edit")
        self.tabs.addTab(self.run_tab, "Run")
        self.body_layout.addWidget(self.tabs, 1)
        self.splitter.setSizes([420, 680])
        self._update_buttons()

    def _edit_tab(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        self.editor = WorkflowEditor()
        layout.addWidget(self.editor, 1)
        buttons = QHBoxLayout()
        self.check_button = QPushButton("Check")
        self.check_button.setToolTip("Run the static check on the text as it is now, without saving")
        self.save_button.setToolTip("Save the file (problems or not) and check it with the agent")
        self.check_button.clicked.connect(self.check)
        buttons.addWidget(self.check_button)
        buttons.addStretch(1)
        buttons.addWidget(self.delete_button)
        buttons.addWidget(self.save_button)
        layout.addLayout(buttons)
        return page

    # --- the editor's hooks ---------------------------------------------------------------------

    def text_box(self) -> QPlainTextEdit:
        return self.editor.text

    def say(self, text: str, *, error: bool = False) -> None:
        palette = colors()
        self.message.setText(text)
        self.message.setStyleSheet(f"color: {palette.error if error else palette.muted};")
        self.message.show()

    def _list_agent(self, agent: Agent) -> None:
        self.model.set_entries(workflow_entries(agent))

    def _shown_again(self, row: int | None) -> None:
        self._show_entry(self.model.entry_at(row) if row is not None else None)
        if self.agent is not None and self._editing is not None:
            self.editor.set_problems(problems_of(self.agent, self._editing), checked="the saved file")

    def _selected(self, row: int) -> None:
        self._show_entry(self.model.entry_at(row))
        self.run_tab.refresh_runs()

    def _file_read(self, path: Path) -> None:
        if self.agent is not None:
            self.editor.set_problems(problems_of(self.agent, path), checked="the saved file")

    def _edit_file(self, path: Path, text: str) -> None:
        super()._edit_file(path, text)
        self.message.hide()

    def _started_new(self) -> None:
        self._show_entry(None)
        self.editor.set_problems(None)

    def _deleted(self) -> None:
        self.editor.set_problems(None)
        self._show_entry(None)

    def _update_buttons(self) -> None:
        super()._update_buttons()
        self.check_button.setEnabled(self._editing is not None)
        self.run_tab.update_buttons(self.selected_entry())

    # --- the list -----------------------------------------------------------------------------

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

    def _show_entry(self, entry: WorkflowEntry | None) -> None:
        """The states and the input form of the selected workflow (none for a file left out)."""
        workflow = entry.workflow if entry is not None else None
        self.states_model.set_states(shown_states(workflow.spec) if workflow is not None else [])
        self.states_title.setText(
            f"Assistants of {entry.name} (its supervisor delegates to them)"
            if workflow is not None and entry is not None and workflow.spec.autonomous
            else f"States of {entry.name}" if workflow is not None and entry is not None
            else "States (fix the file's errors to see them)" if entry is not None
            else "States"
        )  # fmt: skip
        self.run_tab.show_entry(entry)
        self._update_buttons()

    def check(self) -> None:
        """The static check on the text as it is now (on the core thread: it parses and walks)."""
        if self.agent is None or self._editing is None:
            return

        def checked(problems: list[Any]) -> None:
            self.editor.set_problems(problems, checked="the text as it is now")

        self.bridge.call(
            check_workflow_text, self.agent, self._editing, self.editor.text.toPlainText(),
            on_result=checked, on_error=self.show_failure,
        )  # fmt: skip
