"""Workflow runs driven from the desktop: the engine runs on the core thread (through the bridge),
its events come back to the GUI thread as signals; the run store is read off the GUI thread. On
a model that may not give each workflow step the output the next one needs, the run waits for
the user's answer first."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from agent_core.chat.events import ApprovalRequest, SubagentProgress
from agent_core.errors import ContextDeskError
from agent_core.workflows.engine import WorkflowEngine
from agent_core.workflows.events import StepFinished, StepStarted, WorkflowFinished
from agent_core.workflows.mock_outputs import MockOutputs
from agent_core.workflows.model_check import workflow_warning
from agent_core.workflows.records import StepRecord, WorkflowRunRecord
from agent_core.workflows.run_store import WorkflowRunStore
from desktop.bridge import CoreBridge

if TYPE_CHECKING:
    from agent_core.workspace import Workspace

__all__ = ["WorkflowRun", "load_run", "load_runs"]


def load_run(database: Path, run_id: str) -> WorkflowRunRecord | None:
    """One stored run with its steps (blocking: call it through ``bridge.call``)."""
    runs = WorkflowRunStore(database)
    try:
        return runs.run(run_id)
    finally:
        runs.close()


def load_runs(database: Path, agent_path: str, workflow: str) -> list[WorkflowRunRecord]:
    """The newest runs of one workflow of one agent, without their steps (blocking)."""
    runs = WorkflowRunStore(database)
    try:
        return [r for r in runs.runs(agent_path, limit=200) if r.workflow == workflow]
    finally:
        runs.close()


@dataclass(frozen=True)
class _LimitWarning:
    """Before the run: the chat model may not manage the workflow (the user answers first)."""

    warning: str


class WorkflowRun(QObject):
    """One run of a workflow. Signals arrive on the GUI thread, in the order the engine sent them."""

    step_started = Signal(object)  # StepStarted
    step_finished = Signal(object)  # StepRecord
    approval_requested = Signal(object)  # ApprovalRequest (the workflow's gate, or a tool call's)
    progress = Signal(str)  # what an assistant state is doing now
    finished = Signal(object)  # WorkflowRunRecord, also when it failed or was stopped
    failed = Signal(str)  # the run could not be run or read at all
    model_limit_warned = Signal(str)  # the model may not manage it: answer with ``answer_limit``

    def __init__(
        self,
        bridge: CoreBridge,
        workspace: Workspace,
        workflow_name: str,
        given: Any,
        *,
        resume_from: StepRecord | None = None,
        mock_outputs: list[dict[str, Any]] | None = None,
        auto_approve: bool = False,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.workspace = workspace
        self.workflow_name = workflow_name
        self.given = given
        self.resume_from = resume_from
        self.mock_outputs = mock_outputs
        self.auto_approve = auto_approve
        self.run_id = ""  # set on the core thread when the engine is made
        self.record: WorkflowRunRecord | None = None
        self.running = False
        self._task: asyncio.Task[Any] | None = None
        self._limit_choice: asyncio.Future[bool] | None = None  # run anyway?, on the core loop

    def start(self) -> None:
        """Start the run on the core thread; its events follow as signals, ending with
        ``finished`` (or ``failed`` when it could not run at all).

        Raises:
            ContextDeskError: the agent has no valid workflow of that name (nothing started).
        """
        workflow = self.workspace.agent.workflows.get(self.workflow_name)
        if workflow is None:
            raise ContextDeskError(
                f"The workflow {self.workflow_name} has problems and is left out: "
                "fix them in the Workflows tab, save, and run it again."
            )
        workspace = self.workspace
        mock = MockOutputs(self.mock_outputs) if self.mock_outputs is not None else None
        self.running = True

        async def events() -> AsyncIterator[Any]:
            self._task = asyncio.current_task()
            if mock is None:
                model = workspace.agent.config.chat.model
                warning = await workflow_warning(
                    workspace.providers.resolve, workflow, workspace.agent, model
                )
                if warning is not None:
                    self._limit_choice = asyncio.get_running_loop().create_future()
                    yield _LimitWarning(warning)
                    if not await self._limit_choice:
                        raise ContextDeskError(
                            "Not run: pick another model (the agent's chat model, or an assistant's "
                            "model: in the workflow file) and run it again."
                        )
            runs = await asyncio.to_thread(WorkflowRunStore, workspace.store.path)
            try:
                engine = WorkflowEngine(
                    workflow, workspace.agent, workspace.chat_services, workspace.store, runs,
                    mock_outputs=mock,
                    auto_approve=self.auto_approve,
                )  # fmt: skip
                self.run_id = engine.run_id  # read on the GUI thread only after the run's events
                async for event in engine.run(self.given, resume_from=self.resume_from):
                    yield event
            finally:
                runs.close()

        self.bridge.stream(events, self._on_event, self._on_done, self._on_error)

    def answer_limit(self, run_anyway: bool) -> None:
        """The user's answer to ``model_limit_warned``: run anyway, or not run at all."""

        def answer() -> None:
            if self._limit_choice is not None and not self._limit_choice.done():
                self._limit_choice.set_result(run_anyway)

        self.bridge.call_soon(answer)

    def stop(self) -> None:
        """Cancel the run (and the chats of its assistant states); ``finished`` follows."""

        def cancel() -> None:
            if self._task is not None and not self._task.done():
                self._task.cancel()

        self.bridge.call_soon(cancel)

    def _on_event(self, event: object) -> None:
        if isinstance(event, _LimitWarning):
            self.model_limit_warned.emit(event.warning)
        elif isinstance(event, StepStarted):
            self.step_started.emit(event)
        elif isinstance(event, StepFinished):
            self.step_finished.emit(event.step)
        elif isinstance(event, ApprovalRequest):
            self.approval_requested.emit(event)
        elif isinstance(event, SubagentProgress):
            tokens = (event.usage.input_tokens or 0) + (event.usage.output_tokens or 0)
            doing = f" · {event.activity}" if event.activity else ""
            self.progress.emit(
                f"{event.origin or event.subagent}: {event.turns} turns · {tokens:,} tokens{doing}"
            )
        elif isinstance(event, WorkflowFinished):
            self.record = event.run

    def _on_done(self, completed: bool) -> None:
        if completed and self.record is not None:
            self._end(self.record)
            return
        if not self.run_id:
            self._on_error(ContextDeskError("The run was stopped before it started."))
            return
        # Stopped: the engine saved the run as cancelled before it let go; read it back.
        self.bridge.call(
            load_run, self.workspace.store.path, self.run_id, on_result=self._loaded, on_error=self._on_error
        )

    def _loaded(self, record: WorkflowRunRecord | None) -> None:
        if record is None:
            self._on_error(ContextDeskError(f"The run {self.run_id} was not saved."))
        else:
            self._end(record)

    def _end(self, record: WorkflowRunRecord) -> None:
        self.running = False
        self.record = record
        self.finished.emit(record)

    def _on_error(self, error: BaseException) -> None:
        self.running = False
        reason = str(error) if isinstance(error, ContextDeskError) else repr(error)
        self.failed.emit(reason)
