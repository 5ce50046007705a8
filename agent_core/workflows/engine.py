"""Running a workflow: its graph walked from the first state (or a step of an earlier run) to
``end``, over a shared context store.

States run one after the other; ``state_ids`` branches each in turn; an ``iter_key`` runs its
state once per item, one after the other or up to ``parallel`` side by side, their writes merged
in the items' order (``iteration_store``). Each state is one step (``step``). The caps are the
workflow's (``limits``), the time cap over the whole run; the run ends with WorkflowFinished
whatever happens, its record saying how it ended. An Autonomous workflow has no states: its
supervisor's delegations are the steps (``autonomous``), under the same caps and record.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from agent_core.agent.agent import Agent
from agent_core.agent.workflow_files._sandbox import set_deadline
from agent_core.agent.workflow_files.check import END
from agent_core.agent.workflow_files.loader import Workflow
from agent_core.agent.workflow_files.schema import WorkflowState
from agent_core.async_streams import merged
from agent_core.chat.events import ApprovalRequest
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.errors import ContextDeskError
from agent_core.store.chats import ChatStore
from agent_core.workflows.autonomous.walk import autonomous_walk
from agent_core.workflows.errors import WorkflowError
from agent_core.workflows.events import WorkflowEvent, WorkflowFinished
from agent_core.workflows.inputs import initial_store
from agent_core.workflows.iteration_store import ItemWrites, items_of, merge_items, new_keys, scoped
from agent_core.workflows.limits import RunLimits, Stopped
from agent_core.workflows.mock_outputs import MockOutputs
from agent_core.workflows.output_review import NeedsReview
from agent_core.workflows.records import HistoryMessage, StepRecord
from agent_core.workflows.run_store import WorkflowRunStore
from agent_core.workflows.step import StepRunner
from agent_core.workflows.transitions import next_states
from agent_core.workflows.workflow_run import WorkflowRun

__all__ = ["WorkflowEngine"]

_DONE = object()  # the end of a run's events


class WorkflowEngine:
    """Runs a workflow once: each engine is one run, with its own id."""

    def __init__(
        self,
        workflow: Workflow,
        agent: Agent,
        services: ChatServices,
        chats: ChatStore,
        runs: WorkflowRunStore,
        *,
        mock_outputs: MockOutputs | None = None,
        auto_approve: bool = False,
        host: ChatSession | None = None,
    ) -> None:
        """``host``: the chat that started the run (``/run`` or the workflow's tool); its
        assistant states then run as that chat's sub-agents, and its approvals apply."""
        self.run_id = uuid.uuid4().hex[:16]
        self._run = WorkflowRun(
            workflow, agent, services, chats, runs, self.run_id, RunLimits(workflow.spec.limits),
            mock=mock_outputs, auto_approve=auto_approve, host=host,
        )  # fmt: skip
        self.spec = workflow.spec
        self.states = {s.id: s for s in self.spec.states}
        self._steps = StepRunner(self._run)

    async def run(
        self, given: Any, *, resume_from: StepRecord | None = None
    ) -> AsyncIterator[WorkflowEvent | ApprovalRequest]:
        """Events of the run, ending with WorkflowFinished (also when it fails: the failed step
        and the error are in the record). With ``resume_from`` (a step of an earlier run), the
        run starts at that state with the store and history it had then."""
        runs, run = self._run.runs, self._run
        runs.start(self.run_id, str(run.agent.root), run.workflow.name, given, mocked=run.mock is not None)
        store: dict[str, Any] = {}
        status, error = "finished", ""
        try:
            store, walk = self._start(given, resume_from)
            # The states run in a task of their own, their events through a queue: the time cap
            # then cancels only the run, never what the caller does between two events.
            events: asyncio.Queue[Any] = asyncio.Queue()
            driver = asyncio.create_task(self._drive(walk, events))
            try:
                while (event := await events.get()) is not _DONE:
                    if isinstance(event, tuple):
                        store = event[0]
                    else:
                        yield event
                await driver
            finally:
                if not driver.done():
                    driver.cancel()
                    await asyncio.wait([driver])
        except TimeoutError:
            status, error = (
                "stopped",
                f"stopped at limits.timeoutSeconds ({self.spec.limits.timeout_seconds:g} s): raise it "
                "in the workflow file (at most 86,400) if the run needs longer",
            )
        except asyncio.CancelledError:
            runs.finish(self.run_id, "cancelled", store, "cancelled")
            raise
        except NeedsReview as failure:
            status, error = "needs_review", str(failure)
        except (ContextDeskError, LookupError) as failure:
            status, error = ("stopped" if isinstance(failure, Stopped) else "failed"), str(failure)
        runs.finish(self.run_id, status, store, error)  # type: ignore[arg-type]
        record = runs.run(self.run_id)
        assert record is not None
        yield WorkflowFinished(record)

    def _start(self, given: Any, resume_from: StepRecord | None) -> tuple[dict[str, Any], AsyncIterator[Any]]:
        """The store the run starts with, and its walk: from the first state, from a step of an
        earlier run, or the supervisor's of an Autonomous workflow."""
        if self.spec.autonomous:
            if resume_from is not None:
                raise WorkflowError(
                    "an Autonomous run cannot be re-run from a step (its supervisor decides each one): "
                    "run the workflow again"
                )
            store = initial_store(given, self.spec.inputs)
            return store, autonomous_walk(self._run, given, store)
        if resume_from is not None:
            if resume_from.state_id not in self.states:
                raise WorkflowError(f"the workflow has no state '{resume_from.state_id}' any more")
            store = dict(resume_from.store_before)
            return store, self._path(resume_from.state_id, store, resume_from.history_before)
        store = initial_store(given, self.spec.inputs)
        text = given if isinstance(given, str) else json.dumps(given, ensure_ascii=False)
        return store, self._path(self.spec.states[0].id, store, (HistoryMessage("user", text),))

    async def _drive(self, walk: AsyncIterator[Any], events: asyncio.Queue[Any]) -> None:
        try:
            set_deadline(time.monotonic() + self.spec.limits.timeout_seconds)  # held inside templates too
            async with asyncio.timeout(self.spec.limits.timeout_seconds):
                async for event in walk:
                    events.put_nowait(event)
        finally:
            events.put_nowait(_DONE)

    async def _path(
        self, start: str, store: dict[str, Any], history: tuple[HistoryMessage, ...]
    ) -> AsyncIterator[Any]:
        """Run from ``start`` until ``end``; yields events, and (store, history) tuples as they change."""
        current = start
        while current != END:
            state = self.states[current]
            step = None
            async for event in self._steps.step(state, store, history):
                if isinstance(event, StepRecord):
                    step = event
                else:
                    yield event
            assert step is not None
            store, history = step.store_after, step.history_after
            yield (store, history)
            following = next_states(state, store)
            if state.next.iter_key:
                target = self.states[following[0]]
                async for event in self._iterate(state, target, store, history):
                    if isinstance(event, tuple):
                        store, history = event
                    yield event
                following = next_states(target, store)
            if len(following) > 1:  # state_ids: each branch in turn, in order
                for branch in following:
                    async for event in self._path(branch, store, history):
                        if isinstance(event, tuple):
                            store, history = event
                        yield event
                return
            current = following[0]

    async def _iterate(
        self,
        state: WorkflowState,
        target: WorkflowState,
        store: dict[str, Any],
        history: tuple[HistoryMessage, ...],
    ) -> AsyncIterator[Any]:
        """``target`` once per item of ``iter_key``: one after the other, or up to ``parallel`` at
        a time. Every item starts from the same store and history; their outputs are then merged
        in the items' order (never in the order they finished), by the state's ``merge`` rule."""
        items = items_of(state, store)
        self._run.limits.before_items(target.id, state.next.iter_key or "", len(items))
        width = min(target.parallel or 1, len(items)) or 1
        if width == 1:
            writes = ItemWrites(target)
            for item in items:
                seen = scoped(store, item)
                step = None
                async for event in self._steps.step(target, seen, history, item=item):
                    if isinstance(event, StepRecord):
                        step = event
                    else:
                        yield event
                assert step is not None
                store = writes.add(store, new_keys(seen, step))  # the next item sees it
                history = step.history_after
                yield (store, history)
            return
        slot = asyncio.Semaphore(width)
        done: dict[int, StepRecord] = {}

        async def one(index: int, item: Any) -> AsyncIterator[Any]:
            async with slot:
                async for event in self._steps.step(target, scoped(store, item), history, item=item):
                    yield (index, event) if isinstance(event, StepRecord) else event

        async for event in merged([one(i, item) for i, item in enumerate(items)]):
            if isinstance(event, tuple):
                done[event[0]] = event[1]
            else:
                yield event
        yield merge_items(target, store, history, [(items[i], done[i]) for i in sorted(done)])
