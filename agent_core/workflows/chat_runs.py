"""Running a workflow from a chat: ``/run NAME {json}``, or the model calling its tool.

The chat is the run's host: assistant states run as its sub-agents (their rows, Stop and
transcripts as any delegation's), approvals are asked in it and its "allow for this chat" applies,
and cancelling the reply cancels the run and its children. The run's states are in the run store;
the reply's RequestContext links to the run.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from agent_core.chat.events import (
    ApprovalDecision,
    ApprovalRequest,
    SubagentFinished,
    SubagentProgress,
    SubagentStarted,
    ToolCallFinished,
    ToolCallStarted,
    WorkflowProgress,
    WorkflowRunFinished,
)
from agent_core.chat.tool_calls import finished
from agent_core.chat.tool_handlers import MessageTurn
from agent_core.context.items import TokenUsage, WorkflowRunLink
from agent_core.providers.base import ToolCall
from agent_core.workflows.model_check import NOT_RUN, limited_model_question
from agent_core.workflows.tools import WORKFLOW_SERVER, given_of

if TYPE_CHECKING:
    from agent_core.chat.session import ChatSession
    from agent_core.workflows.records import WorkflowRunRecord

__all__ = [
    "ChatWorkflows",
    "WorkflowCallEvent",
    "parse_run_command",
    "run_result",
    "steps_text",
    "workflows_of",
]

WorkflowCallEvent = (
    ToolCallStarted
    | ApprovalRequest
    | WorkflowProgress
    | SubagentStarted
    | SubagentProgress
    | SubagentFinished
    | WorkflowRunFinished
    | ToolCallFinished
)

#: How much of the final store goes back to the model (the whole is in the run store).
RESULT_LIMIT = 20_000


class ChatWorkflows:
    """The workflows one chat runs: the chat's tool handler for the ``workflows`` server
    (``chat.tool_handlers.ToolHandler``)."""

    server = WORKFLOW_SERVER
    side_by_side = False

    def __init__(self, session: ChatSession) -> None:
        self.session = session

    def run(
        self, call: ToolCall, tool: str, turn: MessageTurn, reply_id: int | None
    ) -> AsyncIterator[WorkflowCallEvent]:
        """The model's call of ``workflows.NAME``. A routed model's input is the user's message
        when the workflow declares no inputs; declared inputs are the arguments it wrote under a
        grammar that requires them (the message itself would give none of them: ``{}``)."""
        del reply_id  # a run's states link to their run, not to the reply
        workflow = self.session.agent.workflows.get(tool)
        takes_message = turn.routed and (workflow is None or not workflow.spec.inputs)
        return self.call(call.id, tool, call.arguments, given=turn.text if takes_message else None)

    def cancel(self, call_id: str) -> bool:
        """A run is stopped with the reply that started it, never on its own."""
        del call_id
        return False

    async def call(
        self, call_id: str, name: str, arguments: Mapping[str, Any], *, given: Any = None
    ) -> AsyncIterator[WorkflowCallEvent]:
        """Run the workflow ``name`` as the tool call ``call_id``: its events, then a
        WorkflowRunFinished and the ToolCallFinished whose result the model reads. ``given``
        (``/run``, or a routed model's message) is the input as typed; otherwise it comes from
        ``arguments``."""
        from agent_core.workflows.engine import WorkflowEngine
        from agent_core.workflows.events import StepFinished, StepStarted, WorkflowFinished
        from agent_core.workflows.run_store import WorkflowRunStore

        session = self.session
        call = ToolCall(call_id, name, dict(arguments))
        yield ToolCallStarted(call_id, WORKFLOW_SERVER, name, arguments)
        started = time.monotonic()
        workflow = session.agent.workflows.get(name)
        if workflow is None:
            known = ", ".join(session.agent.workflows) or "none"
            result = f"No workflow named {name} (this agent has: {known})."
            yield finished(
                call, WORKFLOW_SERVER, name, result, is_error=True, elapsed=time.monotonic() - started
            )
            return
        if given is None:
            given = given_of(workflow, arguments)
        question = await limited_model_question(session, call_id, workflow, arguments)
        if question is not None:
            yield question
            if await question.wait() is ApprovalDecision.DENY:
                yield finished(
                    call, WORKFLOW_SERVER, name, NOT_RUN, is_error=True, elapsed=time.monotonic() - started
                )
                return
        runs = WorkflowRunStore(session.store.path)
        record: WorkflowRunRecord | None = None
        try:
            engine = WorkflowEngine(
                workflow, session.agent, session.services, session.store, runs, host=session
            )
            done = 0
            async for event in engine.run(given):
                if isinstance(event, StepStarted):
                    yield WorkflowProgress(
                        call_id, name, engine.run_id, event.state_id, "started", done, event.item
                    )
                elif isinstance(event, StepFinished):
                    done += 1
                    step = event.step
                    yield WorkflowProgress(
                        call_id, name, engine.run_id, step.state_id, step.status, done, step.item, step.error
                    )
                elif isinstance(event, WorkflowFinished):
                    record = event.run
                else:
                    yield event
        finally:
            runs.close()
        assert record is not None
        usage = TokenUsage(
            input_tokens=sum(s.usage.input_tokens or 0 for s in record.steps),
            output_tokens=sum(s.usage.output_tokens or 0 for s in record.steps),
        )
        link = WorkflowRunLink(
            call_id=call_id,
            workflow=name,
            run_id=record.id,
            status=record.status,
            steps=len(record.steps),
            usage=usage,
            elapsed_seconds=round(time.monotonic() - started, 3),
            error=record.error,
        )
        yield WorkflowRunFinished(link, record.store)
        yield finished(
            call, WORKFLOW_SERVER, name, run_result(record, link),
            is_error=record.status != "finished", elapsed=time.monotonic() - started,
        )  # fmt: skip


def steps_text(steps: int) -> str:
    """``1 step``, ``3 steps``."""
    return f"{steps} step{'s' if steps != 1 else ''}"


def run_result(record: WorkflowRunRecord, link: WorkflowRunLink) -> str:
    """What the chat's model reads of a run: the final context store, and one line about the run."""
    tokens = link.usage.total
    ended = record.status if not record.error else f"{record.status}: {record.error}"
    summary = (
        f"[workflow {record.workflow}: {ended}; {steps_text(link.steps)}, {tokens:,} tokens, "
        f"{link.elapsed_seconds:.1f} s; run {record.id}]"
    )
    store = json.dumps(record.store, ensure_ascii=False, indent=2, default=str)
    if len(store) > RESULT_LIMIT:
        store = (
            store[:RESULT_LIMIT]
            + f"\n… (cut: {len(store):,} characters; `contextdesk workflow show {record.id}`)"
        )
    return f"{store}\n{summary}"


def parse_run_command(text: str) -> tuple[str, str] | None:
    """``/run NAME {json or text}`` as (name, input); None when ``text`` is not a /run command."""
    if not (text == "/run" or text.startswith(("/run ", "/run\n"))):
        return None
    name, _, given = text[len("/run") :].strip().partition(" ")
    if "\n" in name:
        name, _, rest = name.partition("\n")
        given = f"{rest} {given}".strip()
    return name, given.strip()


def workflows_of(session: ChatSession) -> ChatWorkflows:
    """The chat's own workflow handler (the one its tool calls use), else one made for it."""
    handler = session.tool_handlers.get(WORKFLOW_SERVER)
    return handler if isinstance(handler, ChatWorkflows) else ChatWorkflows(session)
