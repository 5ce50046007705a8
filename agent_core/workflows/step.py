"""One step of a run: a state's task rendered from the store, its gate asked, its answer got
(from its tool or its assistant), the output parsed, checked and stored, and the step recorded
with everything needed to show it and re-run from it. A step that fails is recorded too."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

from agent_core.agent.workflow_files.schema import WorkflowState
from agent_core.agent.workflow_files.templates import WorkflowTemplateError, render
from agent_core.chat.events import WORKFLOW_GATE, ApprovalDecision, ApprovalRequest
from agent_core.context.items import TokenUsage
from agent_core.errors import ContextDeskError
from agent_core.subagents.output_schema import schema_problem
from agent_core.workflows.assistant_state import AssistantAnswer, answer
from agent_core.workflows.context_store import Transition, apply_output
from agent_core.workflows.errors import WorkflowError
from agent_core.workflows.events import StepFinished, StepStarted
from agent_core.workflows.limits import Stopped
from agent_core.workflows.output_review import NeedsReview, following_states, review_problem
from agent_core.workflows.parsing import Parsed, parse_output, pointed
from agent_core.workflows.records import HistoryMessage, StepRecord
from agent_core.workflows.tool_state import ToolAnswer, call_tool, tool_provenance
from agent_core.workflows.transitions import next_states
from agent_core.workflows.workflow_run import WorkflowRun

__all__ = ["StepRunner"]


class StepRunner:
    """Runs the steps of one run, each counted against the run's caps and recorded in the order
    it ends (the items of an iteration may run side by side)."""

    def __init__(self, run: WorkflowRun) -> None:
        self.run = run

    async def step(
        self,
        state: WorkflowState,
        store: dict[str, Any],
        history: tuple[HistoryMessage, ...],
        item: Any = None,
    ) -> AsyncIterator[Any]:
        """The step's events (StepStarted, approvals, its assistant's, StepFinished), then its
        StepRecord last.

        Raises:
            ContextDeskError: the step failed or was refused (it is recorded first), or a cap
                stops the run.
        """
        run = self.run
        run.limits.before(state.id)
        yield StepStarted(run.run_id, state.id, item)
        started = time.monotonic()
        base = StepRecord(
            position=run.limits.steps,
            state_id=state.id,
            kind="tool" if state.tool_id else ("mock" if run.mock else "assistant"),
            store_before=dict(store),
            history_before=history,
            item=item,
        )
        raw, usage, child, provenance = "", TokenUsage(), "", None
        try:
            task = (
                render(state.task, store, where=f"state '{state.id}', task", undefined=run.spec.undefined)
                if state.resolve_dynamic_values_in_prompt
                else state.task
            )
            base = replace(base, rendered_task=task)
            if state.approve or state.interrupt_before:
                async for request in self._gate(state, task):
                    yield request
            answers = (
                call_tool(run, state, store) if state.tool_id else answer(run, state, task, history, store)
            )
            async for event in answers:
                if isinstance(event, ToolAnswer):
                    raw, base = event.text, replace(base, rendered_args=event.arguments)
                    provenance = tool_provenance(event)
                elif isinstance(event, AssistantAnswer):
                    raw, usage, child = event.text, event.usage, event.child_session_id
                    provenance = event.provenance
                else:
                    yield event
        except ContextDeskError as failure:
            failed = replace(base, status="failed", error=str(failure), elapsed_seconds=time.monotonic() - started,
                             store_after=dict(store), history_after=history)  # fmt: skip
            yield StepFinished(run.run_id, self._record(failed))
            raise
        base = replace(base, provenance=provenance)
        # A state that keeps its whole answer as text under an output_key asked for text: prose
        # with a brace in it is that text, not JSON to be repaired into some object.
        asks_for_text = (
            bool(state.next.output_key) and state.output_schema is None and not state.output_pointer
        )
        parsed = parse_output(raw, repair=not asks_for_text)
        try:
            value = pointed(parsed.value, state.output_pointer)
            _validate(state, value)
        except WorkflowError as failure:
            failed = replace(base, raw_output=raw, parse_path=parsed.path, status="failed", error=str(failure),
                             store_after=dict(store), history_after=history,
                             elapsed_seconds=round(time.monotonic() - started, 4))  # fmt: skip
            yield StepFinished(run.run_id, self._record(failed))
            raise
        step = self._done(state, base, raw, parsed, value, usage, child)
        step = replace(step, elapsed_seconds=round(time.monotonic() - started, 4))
        try:
            following = next_states(state, step.store_after)
        except WorkflowTemplateError as failure:
            step = self._record(replace(step, status="failed", error=str(failure)))
            yield StepFinished(run.run_id, step)
            raise
        step = replace(step, next_state=", ".join(following))
        problem = review_problem(
            state,
            parse_path=parsed.path,
            value=value,
            provenance=provenance,
            following=following_states({s.id: s for s in run.spec.states}, following),
            store=step.store_after,
            undefined=run.spec.undefined,
        )
        step = self._record(replace(step, status="needs_review", error=problem) if problem else step)
        yield StepFinished(run.run_id, step)
        if problem:
            raise NeedsReview(problem)
        run.limits.stop_if_over()
        yield step

    def _done(
        self,
        state: WorkflowState,
        base: StepRecord,
        raw: str,
        parsed: Parsed,
        value: Any,
        usage: TokenUsage,
        child: str,
    ) -> StepRecord:
        """``base`` with the output ``value`` stored by the state's ``next`` rules, the history it
        leaves, and the RequestContext of its assistant's chat ``child``."""
        next_ = state.next
        transition = Transition(
            store_in_context=next_.store_in_context,
            output_key=next_.output_key,
            clear_context_store=next_.clear_context_store,
            reset_keys_in_context_store=tuple(next_.reset_keys_in_context_store or ()),
        )
        after, change = apply_output(base.store_before, value, raw, transition)
        if base.item is not None:
            after.pop("item", None)
        history = base.history_before
        new_history = () if next_.clear_prior_messages else history
        if next_.include_in_llm_history and not next_.clear_prior_messages:
            new_history = (*new_history, HistoryMessage("assistant", raw, state.id))
        self.run.limits.tokens += usage.total
        context = None
        if child:
            messages = self.run.chats.messages(child)
            context = next((m.request_context for m in reversed(messages) if m.request_context), None)
        return replace(
            base,
            raw_output=raw,
            parsed_output=value,
            parse_path=parsed.path,
            store_after=after,
            history_after=new_history,
            added=change.added,
            changed=change.changed,
            removed=change.removed,
            child_session_id=child,
            request_context=context,
            usage=usage,
        )

    def _record(self, step: StepRecord) -> StepRecord:
        """Keep ``step``, numbered in the order steps end (items run side by side start together)."""
        step, data = self.run.limits.record(step)
        self.run.runs.add_step(self.run.run_id, step, data)
        return step

    async def _gate(self, state: WorkflowState, task: str) -> AsyncIterator[ApprovalRequest]:
        """The user's go-ahead before ``state`` runs (its ``approve`` or ``interrupt_before``).

        Raises:
            Stopped: the user said no.
        """
        run = self.run
        request = ApprovalRequest(run.run_id, WORKFLOW_GATE, state.id, {"task": task}, origin=run.origin)
        if run.auto_approve:
            request.decide(ApprovalDecision.ALLOW_ONCE)
        else:
            yield request
        if await request.wait() is ApprovalDecision.DENY:
            raise Stopped(f"stopped: you did not let state '{state.id}' run")


def _validate(state: WorkflowState, value: Any) -> None:
    """The output against the state's ``output_schema`` (an assistant's answer got its one
    repair already; a tool's or a mock's gets none).

    Raises:
        WorkflowError: it does not match, with the first mismatch.
    """
    schema = state.output_schema
    if schema is None:
        return
    if isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except ValueError as error:
            raise WorkflowError(f"state '{state.id}': output_schema is not JSON: {error}") from error
    problem = schema_problem(json.dumps(value, default=str), schema)
    if problem is not None:
        raise WorkflowError(f"state '{state.id}': the output does not match output_schema: {problem}")
