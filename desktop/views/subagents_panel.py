"""The Sub-agents tab of the management window: the agent's sub-agents, each file edited as text
(checked before it is saved), new ones from a template, and a test run on a task."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.agent import Agent
from agent_core.chat.events import ApprovalDecision, ApprovalRequest, SubagentProgress
from agent_core.context.items import Delegation
from agent_core.errors import ContextDeskError
from agent_core.subagents.definition import Subagent
from agent_core.subagents.direct import run_directly
from agent_core.subagents.files import check_subagent_text, delete_subagent, save_subagent, template_for
from desktop.bridge import CoreBridge
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.models._table import RowTableModel
from desktop.theme import colors
from desktop.views.tables import row_table

__all__ = ["SubagentsModel", "SubagentsPanel"]


class SubagentsModel(RowTableModel[Subagent]):
    HEADERS = ("Name", "Context", "Model", "Tools", "Limits")

    def set_subagents(self, subagents: list[Subagent]) -> None:
        self._reset_rows(subagents)

    def subagent_at(self, row: int) -> Subagent | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, name: str) -> int | None:
        return next((i for i, s in enumerate(self._rows) if s.name == name), None)

    def cell_data(self, row: Subagent, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            limits = row.limits
            tools = "every tool" if row.tools is None else ", ".join(row.tools) or "none"
            return (
                row.name,
                row.context,
                row.model,
                tools,
                f"{limits.max_turns} turns · {limits.max_tokens:,} tokens · {limits.timeout_seconds:g} s",
            )[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.description
        return None


class SubagentsPanel(QWidget):
    saved = Signal()  # a file was written or deleted: the agent is to be reloaded
    transcript_requested = Signal(str, str)  # a test run's chat id, a title

    def __init__(self, bridge: CoreBridge, host: WorkspaceHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.host = host
        self.agent: Agent | None = None
        self.model = SubagentsModel(self)
        self._editing: str | None = None  # the name whose file is in the editor
        self._confirm_delete = False
        layout = QVBoxLayout(self)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        layout.addWidget(splitter, 1)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        self.table = row_table(self.model)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._on_selected())
        left_layout.addWidget(self.table, 1)
        new_row = QHBoxLayout()
        self.new_name = QLineEdit()
        self.new_name.setPlaceholderText("new sub-agent name, e.g. researcher")
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
        self.file_label = QLabel("Select a sub-agent, or make a new one.")
        self.file_label.setStyleSheet("font-weight: 600;")
        right_layout.addWidget(self.file_label)
        self.editor = QPlainTextEdit()
        self.editor.setPlaceholderText(
            "The sub-agent file: a YAML header between '---' lines, then its prompt."
        )
        self.editor.textChanged.connect(self._check_soon)
        right_layout.addWidget(self.editor, 2)
        self.problems = QLabel()
        self.problems.setWordWrap(True)
        right_layout.addWidget(self.problems)
        buttons = QHBoxLayout()
        self.save_button = QPushButton("Save")
        self.delete_button = QPushButton("Delete")
        self.save_button.clicked.connect(self.save)
        self.delete_button.clicked.connect(self.delete)
        buttons.addStretch(1)
        buttons.addWidget(self.delete_button)
        buttons.addWidget(self.save_button)
        right_layout.addLayout(buttons)
        test_row = QHBoxLayout()
        self.task = QLineEdit()
        self.task.setPlaceholderText("A task to try it on (runs the saved file with the chat's model)")
        self.allow_tools = QCheckBox("Allow its tool calls")
        self.allow_tools.setToolTip(
            "Test runs ask nothing: calls that need approval are denied unless this is on"
        )
        self.run_button = QPushButton("Test run")
        self.run_button.clicked.connect(self.test_run)
        self.task.returnPressed.connect(self.test_run)
        test_row.addWidget(self.task, 1)
        test_row.addWidget(self.allow_tools)
        test_row.addWidget(self.run_button)
        right_layout.addLayout(test_row)
        self.run_status = QLabel()
        self.run_status.setWordWrap(True)
        self.run_status.setStyleSheet(f"color: {colors().muted};")
        right_layout.addWidget(self.run_status)
        self.result = QPlainTextEdit()
        self.result.setReadOnly(True)
        self.result.setMaximumHeight(140)
        right_layout.addWidget(self.result)
        self.open_chat_button = QPushButton("Open its chat")
        self.open_chat_button.hide()
        self.open_chat_button.clicked.connect(self._open_chat)
        right_layout.addWidget(self.open_chat_button, 0, Qt.AlignmentFlag.AlignRight)
        splitter.addWidget(right)
        splitter.setSizes([380, 620])
        self._last_run: Delegation | None = None
        self._update_buttons()

    # --- the list -----------------------------------------------------------------------------

    def set_agent(self, agent: Agent) -> None:
        self.agent = agent
        self.model.set_subagents(list(agent.subagents.values()))
        if self._editing is not None and (row := self.model.row_of(self._editing)) is not None:
            self.table.blockSignals(True)
            self.table.selectRow(row)
            self.table.blockSignals(False)
        self._update_buttons()

    def _on_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        subagent = self.model.subagent_at(rows[0].row()) if rows else None
        if subagent is None or subagent.path is None:
            return
        path, name = subagent.path, subagent.name

        def shown(text: str) -> None:
            self._show_file(name, text)

        self.bridge.call(path.read_text, "utf-8", on_result=shown, on_error=self._failed)

    def _show_file(self, name: str, text: str) -> None:
        self._editing = name
        self._confirm_delete = False
        self.file_label.setText(f"subagents/{name}.md")
        self.editor.setPlainText(text)
        self._update_buttons()

    def new_from_template(self) -> None:
        name = self.new_name.text().strip()
        if not name:
            self.problems.setText("Type a name for the new sub-agent first.")
            return
        if self.agent is not None and name in self.agent.subagents:
            self.problems.setText(f"There is already a sub-agent named {name}.")
            return
        self.table.clearSelection()
        self._show_file(name, template_for(name))
        self.file_label.setText(f"subagents/{name}.md (new, not saved yet)")
        self.new_name.clear()

    # --- editing ------------------------------------------------------------------------------

    def _check_soon(self) -> None:
        """Check the text as it is typed (cheap: parsing only, on the GUI thread)."""
        if self.agent is None or self._editing is None:
            return
        try:
            problems = check_subagent_text(self.agent.root, self._editing, self.editor.toPlainText())
        except ContextDeskError as error:
            self.problems.setText(str(error))
            return
        lines = [f"{p.severity}{f' (line {p.line})' if p.line else ''}: {p.message}" for p in problems]
        self.problems.setText("\n".join(lines) if lines else "No problems.")
        palette = colors()
        errors = any(p.severity == "error" for p in problems)
        self.problems.setStyleSheet(f"color: {palette.error if errors else palette.muted};")
        self.save_button.setEnabled(not errors)

    def save(self) -> None:
        if self.agent is None or self._editing is None:
            return
        root, name, text = self.agent.root, self._editing, self.editor.toPlainText()

        def done(_warnings: object) -> None:
            self.file_label.setText(f"subagents/{name}.md (saved)")
            self.saved.emit()

        self.bridge.call(save_subagent, root, name, text, on_result=done, on_error=self._failed)

    def delete(self) -> None:
        if self.agent is None or self._editing is None:
            return
        if not self._confirm_delete:
            self._confirm_delete = True
            self.delete_button.setText("Click again to delete")
            return
        root, name = self.agent.root, self._editing

        def done(_: None) -> None:
            self._editing = None
            self.editor.clear()
            self.file_label.setText(f"subagents/{name}.md deleted.")
            self._update_buttons()
            self.saved.emit()

        self.bridge.call(delete_subagent, root, name, on_result=done, on_error=self._failed)

    def _update_buttons(self) -> None:
        editing = self._editing is not None
        self.save_button.setEnabled(editing)
        self.delete_button.setEnabled(editing)
        self.delete_button.setText("Delete")
        saved = editing and self.agent is not None and self._editing in self.agent.subagents
        self.run_button.setEnabled(bool(saved) and self.host.workspace is not None)

    # --- test runs ----------------------------------------------------------------------------

    def test_run(self) -> None:
        workspace = self.host.workspace
        name, task = self._editing, self.task.text().strip()
        if workspace is None or name is None or not task or name not in workspace.agent.subagents:
            self.run_status.setText("Save the sub-agent and type a task first.")
            return
        self.run_button.setEnabled(False)
        self.result.clear()
        self.open_chat_button.hide()
        self.run_status.setText(f"{name} is running…")
        allow = self.allow_tools.isChecked()

        def on_event(event: object) -> None:
            if isinstance(event, ApprovalRequest):
                event.decide(ApprovalDecision.ALLOW_ONCE if allow else ApprovalDecision.DENY)
            elif isinstance(event, SubagentProgress) and not event.origin:
                tokens = (event.usage.input_tokens or 0) + (event.usage.output_tokens or 0)
                doing = f" · {event.activity}" if event.activity else ""
                self.run_status.setText(f"{name}: {event.turns} turns · {tokens:,} tokens{doing}")
            elif isinstance(event, Delegation):
                self._finished(event)

        def done(_completed: bool) -> None:
            self.run_button.setEnabled(True)

        def failed(error: BaseException) -> None:
            self.run_button.setEnabled(True)
            self._failed(error)

        self.bridge.stream(
            lambda: run_directly(workspace.agent, workspace.store, workspace.chat_services, name, task),
            on_event,
            done,
            failed,
        )

    def _finished(self, delegation: Delegation) -> None:
        self._last_run = delegation
        tokens = (delegation.usage.input_tokens or 0) + (delegation.usage.output_tokens or 0)
        ended = f"stopped: {delegation.note}" if delegation.stopped_by else "finished"
        self.run_status.setText(
            f"{delegation.subagent} {ended} · {delegation.turns} turns · {tokens:,} tokens · "
            f"{delegation.elapsed_seconds:.1f} s · {delegation.model}"
        )
        self.result.setPlainText(delegation.result)
        self.open_chat_button.show()

    def _open_chat(self) -> None:
        run = self._last_run
        if run is not None:
            self.transcript_requested.emit(run.child_session_id, f"{run.subagent}: {run.task[:60]}")

    def _failed(self, error: BaseException) -> None:
        self.problems.setText(str(error) if isinstance(error, ContextDeskError) else repr(error))
        self.problems.setStyleSheet(f"color: {colors().error};")
