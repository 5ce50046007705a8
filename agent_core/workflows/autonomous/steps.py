"""The delegations of one autonomous run, each kept as a step of the run (the assistant as its
state, the task it was given, its result, what produced it), and whether the run may say
"finished": only when the supervisor finished after the assistants did the work.

A delegation is marked ``needs_review`` when its assistant produced nothing grounded: it stopped
(a cap, an error, a cancel), gave no result, a routed tool answered in its place, or it was given
tools and answered without using any. The run goes on (the supervisor reads the result with its
one-line note and may ask again), but it ends ``needs_review`` while such a step is the latest of
its assistant, or when the supervisor finished without delegating at all.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

from agent_core.context.items import Delegation, TokenUsage
from agent_core.context.provenance import Provenance
from agent_core.workflows.context_store import diff
from agent_core.workflows.events import StepFinished, StepStarted
from agent_core.workflows.records import HistoryMessage, StepRecord
from agent_core.workflows.workflow_run import WorkflowRun

__all__ = [
    "FINISH",
    "RESULT_KEY",
    "SUPERVISOR",
    "DelegationSteps",
    "delegation_problem",
    "final_answer",
    "mock_delegation",
]

SUPERVISOR = "supervisor"  # the supervisor's name: the steps' next state, its chat's sub-agent path
FINISH = "FINISH"  # CodeMie's supervisor says it when the work is done
RESULT_KEY = "result"  # where the supervisor's final answer is stored


def delegation_problem(
    assistant: str, result: str, *, stopped: str, provenance: Provenance | None, tools: Sequence[str]
) -> str | None:
    """Why a delegation's result is not the assistant's grounded work (None when it is), with the fix."""
    head = f"the delegation to '{assistant}' needs review:"
    if stopped:
        return (
            f"{head} the assistant stopped ({stopped}), so its result is partial or missing. Raise "
            "the cap it reached, or run it again"
        )
    if not result.strip():
        return f"{head} the assistant gave no result. Run it with a model that answers the task"
    if provenance is not None and provenance.produced_by == "tool_result":
        tool = provenance.answering_tool
        name = tool.label() if tool is not None else "a tool"
        return (
            f"{head} {name} answered in the assistant's place (ContextDesk routed the task to it), no "
            "model wrote the result. Run it with a model that can choose tools"
        )
    if tools and provenance is not None and provenance.produced_by == "model" and not provenance.grounded:
        shown = ", ".join(tools[:3]) + (", …" if len(tools) > 3 else "")
        return (
            f"{head} it was given tools ({shown}) but answered without using any, so its answer is "
            "not grounded in them. Run it with a model that calls tools, or remove its tools if it "
            "needs none"
        )
    return None


def final_answer(text: str) -> str:
    """The supervisor's last reply without CodeMie's closing word (its template asks for
    "respond with FINISH")."""
    stripped = text.strip()
    if stripped.endswith(FINISH):
        stripped = stripped[: -len(FINISH)].rstrip()
    return stripped


class DelegationSteps:
    """Records one run's delegations as steps; counts them against the run's caps."""

    def __init__(self, run: WorkflowRun, store: dict[str, Any], history: tuple[HistoryMessage, ...]) -> None:
        self.run = run
        self.store = dict(store)
        self.history = history
        self.latest: dict[str, StepRecord] = {}  # each assistant's latest step
        self.stopped = ""  # why a delegation was refused (a cap): the run stops with it
        self._started: dict[str, float] = {}

    def admit(self, assistant: str) -> None:
        """Raises Stopped when the run may not delegate again (maxSteps, maxTokens, a byte cap)."""
        self.run.limits.before(assistant)

    def started(self, call_id: str, assistant: str) -> StepStarted:
        self._started[call_id] = time.monotonic()
        return StepStarted(self.run.run_id, assistant)

    def finished(
        self,
        delegation: Delegation,
        *,
        tools: Sequence[str] = (),
        kind: Literal["assistant", "mock"] = "assistant",
    ) -> StepFinished:
        """The step of a delegation that ended, recorded (cut to its outline past maxStepBytes);
        the store then holds its result under the assistant's id, the history the result.
        ``tools``: the agent's tools the assistant was given (then it is expected to use them)."""
        run, assistant, result = self.run, delegation.subagent, delegation.result
        stopped = (delegation.note or delegation.stopped_by) if delegation.stopped_by else ""
        problem = delegation_problem(
            assistant, result, stopped=stopped, provenance=delegation.provenance, tools=tools
        )
        after = {**self.store, assistant: result}
        change = diff(self.store, after)
        history = (*self.history, HistoryMessage("assistant", result, assistant))
        context = None
        if delegation.child_session_id:
            messages = run.chats.messages(delegation.child_session_id)
            context = next((m.request_context for m in reversed(messages) if m.request_context), None)
        started = self._started.pop(delegation.call_id, time.monotonic())
        step = StepRecord(
            position=run.limits.steps,
            state_id=assistant,
            kind=kind,
            store_before=dict(self.store),
            history_before=self.history,
            rendered_task=delegation.task,
            raw_output=result,
            parsed_output=result,
            store_after=after,
            history_after=history,
            added=change.added,
            changed=change.changed,
            removed=change.removed,
            next_state=SUPERVISOR,
            child_session_id=delegation.child_session_id,
            request_context=context,
            usage=delegation.usage,
            elapsed_seconds=round(delegation.elapsed_seconds or time.monotonic() - started, 4),
            provenance=delegation.provenance,
            delegated=True,
        )
        if problem:
            step = replace(step, status="needs_review", error=problem)
        step, data = run.limits.record(step)
        run.runs.add_step(run.run_id, step, data)
        run.limits.tokens += delegation.usage.total
        self.store, self.history = after, history
        self.latest[assistant] = step
        return StepFinished(run.run_id, step)

    def finish(self, answer: str) -> str | None:
        """Put the supervisor's final answer in the store (``result``; the last delegation's
        result when it said only FINISH); why the run needs review, or None: it finished without
        delegating, or on a delegation marked for review."""
        steps = sorted(self.latest.values(), key=lambda s: s.position)
        text = final_answer(answer) or (steps[-1].raw_output if steps else "")
        self.store = {**self.store, RESULT_KEY: text}
        if not steps:
            return (
                "the run needs review: the supervisor finished without delegating to any assistant, "
                "so its answer is its own, not the assistants' work. Run it with a model that can call "
                "tools (it delegates through them), or say in supervisor_prompt which assistant does what"
            )
        open_ = [s for s in steps if s.status == "needs_review"]
        if open_:
            more = f" ({len(open_) - 1} more delegation(s) too)" if len(open_) > 1 else ""
            return f"the run needs review: the supervisor finished, but {open_[0].error}{more}"
        return None


def mock_delegation(call_id: str, assistant: str, task: str, result: str) -> Delegation:
    """A delegation answered by a mock output (no chat ran)."""
    return Delegation(
        call_id,
        assistant,
        task,
        "isolated",
        "",
        usage=TokenUsage(),
        result=result,
        provenance=Provenance("mock"),
    )
