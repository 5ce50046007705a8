"""The Sub-agents tab of the management window: the agent-file editor over ``subagents/NAME.md``
(each file checked as it is typed, saved only without errors), and a test run on a task."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from agent_core.agent.agent import Agent
from agent_core.agent.subagent_files.files import (
    check_subagent_text,
    delete_subagent,
    save_subagent,
    subagent_path,
    template_for,
)
from agent_core.chat.events import ApprovalDecision, ApprovalRequest, SubagentProgress
from agent_core.context.items import Delegation
from agent_core.errors import ContextDeskError
from agent_core.providers.limit_warning import warning_for_ref
from agent_core.subagents.child_context import resolve_model
from agent_core.subagents.direct import run_directly
from desktop.bridge import CoreBridge
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.dialogs.model_limit import ModelLimitPrompt
from desktop.models.subagents import SubagentsModel
from desktop.theme import colors
from desktop.views.agent_file_panel import AgentFileKind, AgentFilePanel

__all__ = ["SUBAGENT_FILES", "SubagentsPanel"]

SUBAGENT_FILES = AgentFileKind(
    noun="sub-agent",
    model=SubagentsModel,
    new_name_hint="new sub-agent name, e.g. researcher",
    path_of=subagent_path,
    template=template_for,
    loaded=lambda agent: agent.subagents,
    save=lambda root, path, text: save_subagent(root, path.stem, text),
    delete=lambda root, path: delete_subagent(root, path.stem),
    saved_note="saved",
)


class SubagentsPanel(AgentFilePanel):
    model: SubagentsModel

    def __init__(self, bridge: CoreBridge, host: WorkspaceHost, parent: QWidget | None = None) -> None:
        super().__init__(bridge, host, SUBAGENT_FILES, parent)
        self.list_layout.setStretchFactor(self.table, 1)
        body = self.body_layout
        self.editor = QPlainTextEdit()
        self.editor.setPlaceholderText(
            "The sub-agent file: a YAML header between '---' lines, then its prompt."
        )
        self.editor.textChanged.connect(self._check_soon)
        body.addWidget(self.editor, 2)
        self.problems = QLabel()
        self.problems.setWordWrap(True)
        body.addWidget(self.problems)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.delete_button)
        buttons.addWidget(self.save_button)
        body.addLayout(buttons)
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
        body.addLayout(test_row)
        self.run_status = QLabel()
        self.run_status.setWordWrap(True)
        self.run_status.setStyleSheet(f"color: {colors().muted};")
        body.addWidget(self.run_status)
        self.result = QPlainTextEdit()
        self.result.setReadOnly(True)
        self.result.setMaximumHeight(140)
        body.addWidget(self.result)
        self.open_chat_button = QPushButton("Open its chat")
        self.open_chat_button.hide()
        self.open_chat_button.clicked.connect(self._open_chat)
        body.addWidget(self.open_chat_button, 0, Qt.AlignmentFlag.AlignRight)
        self.splitter.setSizes([380, 620])
        self._last_run: Delegation | None = None
        self.model_limit_prompt: ModelLimitPrompt | None = None
        self._update_buttons()

    # --- the editor's hooks ---------------------------------------------------------------------

    def text_box(self) -> QPlainTextEdit:
        return self.editor

    def say(self, text: str, *, error: bool = False) -> None:
        palette = colors()
        self.problems.setText(text)
        self.problems.setStyleSheet(f"color: {palette.error if error else palette.muted};")

    def _list_agent(self, agent: Agent) -> None:
        self.model.set_subagents(list(agent.subagents.values()))

    def _editing_name(self) -> str | None:
        return self._editing.stem if self._editing is not None else None

    def _check_soon(self) -> None:
        """Check the text as it is typed (cheap: parsing only, on the GUI thread)."""
        name = self._editing_name()
        if self.agent is None or name is None:
            return
        try:
            problems = check_subagent_text(self.agent.root, name, self.editor.toPlainText())
        except ContextDeskError as error:
            self.problems.setText(str(error))
            return
        lines = [f"{p.severity}{f' (line {p.line})' if p.line else ''}: {p.message}" for p in problems]
        palette = colors()
        errors = any(p.severity == "error" for p in problems)
        self.problems.setText("\n".join(lines) if lines else "No problems.")
        self.problems.setStyleSheet(f"color: {palette.error if errors else palette.muted};")
        self.save_button.setEnabled(not errors)

    def _update_buttons(self) -> None:
        super()._update_buttons()
        name = self._editing_name()
        saved = name is not None and self.agent is not None and name in self.agent.subagents
        self.run_button.setEnabled(saved and self.host.workspace is not None)

    # --- test runs ----------------------------------------------------------------------------

    def test_run(self) -> None:
        workspace = self.host.workspace
        name, task = self._editing_name(), self.task.text().strip()
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
            self.show_failure(error)

        def start() -> None:
            self.bridge.stream(
                lambda: run_directly(workspace.agent, workspace.store, workspace.chat_services, name, task),
                on_event,
                done,
                failed,
            )

        def not_run() -> None:
            self.run_button.setEnabled(True)
            self.run_status.setText(
                f"{name} was not run: pick another model (model: in its file, or the agent's chat model)."
            )

        def checked(warning: str | None) -> None:
            if warning is None:
                start()
                return
            self.run_status.setText(f"{name}: waiting for your answer about the model.")
            prompt = ModelLimitPrompt(warning, self)
            prompt.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            prompt.run_anyway.connect(start)
            prompt.pick_another.connect(not_run)
            self.model_limit_prompt = prompt
            prompt.open()

        agent = workspace.agent
        model, _note = resolve_model(agent.subagents[name], agent, agent.config.chat.model)
        check = warning_for_ref(workspace.providers.resolve, model, "subagent")
        self.bridge.submit(check, checked, lambda _error: start())

    def _finished(self, delegation: Delegation) -> None:
        self._last_run = delegation
        tokens = (delegation.usage.input_tokens or 0) + (delegation.usage.output_tokens or 0)
        ended = f"stopped: {delegation.note}" if delegation.stopped_by else "finished"
        produced = (
            f"\nProduced by {delegation.provenance.line()}" if delegation.provenance is not None else ""
        )
        self.run_status.setText(
            f"{delegation.subagent} {ended} · {delegation.turns} turns · {tokens:,} tokens · "
            f"{delegation.elapsed_seconds:.1f} s · {delegation.model}{produced}"
        )
        self.result.setPlainText(delegation.result)
        self.open_chat_button.show()

    def _open_chat(self) -> None:
        run = self._last_run
        if run is not None:
            self.transcript_requested.emit(run.child_session_id, f"{run.subagent}: {run.task[:60]}")
