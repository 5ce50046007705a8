"""Running the tool calls of one model turn: find the tool, ask for approval when the policy says
so, call it, and record what happened (a failure is a result the model sees, never a crash)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

from agent_core.agent.schema import ToolPermissionPolicy
from agent_core.chat.approvals import asks_every_call, needs_approval, tool_approval, tool_ref
from agent_core.chat.events import (
    ApprovalDecision,
    ApprovalRequest,
    ItemPulled,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallStarted,
)
from agent_core.chat.item_kinds import pulled_refs
from agent_core.chat.progress_relay import ProgressRelay
from agent_core.chat.prompt import Prompt, ToolBinding
from agent_core.chat.sampling_answers import ChatSampling, SamplingEvent
from agent_core.chat.tool_handlers import MessageTurn, ToolCallEvent, ToolHandler
from agent_core.content_parts import kept_parts
from agent_core.context.items import ItemRef
from agent_core.context.request_tools import AnsweredTool, ToolAnswer
from agent_core.errors import ContextDeskError
from agent_core.providers.base import ToolCall
from agent_core.sampling_router import SamplingRouter
from agent_core.store.chats import Approval, ToolCallRecord
from agent_core.store.kept_results import kept_result
from agent_core.tools.runtime import RichOutcome, ToolOutcome, ToolRuntime, call_ended, outcome_ended

if TYPE_CHECKING:
    from agent_core.agent.agent import Agent

__all__ = ["ToolCaller", "finished", "interleaved", "pending_record", "with_rich_result"]

E = TypeVar("E")

# Characters of structured content a chat keeps to show (the model reads a shorter cut).
MAX_KEPT_STRUCTURED = 1_000_000


@dataclass(frozen=True)
class ToolCaller:
    """How one chat runs tools: its runtime, its policy, what it allowed, and how to remember an
    'allow for this chat'."""

    tools: ToolRuntime
    policy: ToolPermissionPolicy
    allowed_for_chat: Callable[[], Collection[ItemRef]]  # read per call: an allow applies at once
    allow_for_chat: Callable[[ItemRef], None]
    # The servers whose tools the chat runs itself (sub-agents, workflows), by server name, and
    # the message their calls answer.
    handlers: Mapping[str, ToolHandler] = field(default_factory=dict)
    turn: MessageTurn = field(default_factory=lambda: MessageTurn(""))
    agent: Agent | None = None  # the chat's agent: approvals and loaded skills read it
    # A server's sampling requests during a call go to this chat through the router.
    router: SamplingRouter | None = None
    sampling: ChatSampling | None = None

    def side_by_side(self, call: ToolCall, prompt: Prompt) -> bool:
        """Whether ``call`` may run beside the other such calls of its turn (a sub-agent's may)."""
        binding = prompt.binding(call.name)
        handler = self.handlers.get(binding.server) if binding is not None else None
        return handler is not None and handler.side_by_side

    async def run(
        self, call: ToolCall, prompt: Prompt, message_id: int | None = None
    ) -> AsyncIterator[ToolCallEvent]:
        """Events for one call, ending with its ToolCallFinished; ``message_id`` is the reply
        that made the call (a sub-agent's chat links to it)."""
        binding = prompt.binding(call.name)
        handler = self.handlers.get(binding.server) if binding is not None else None
        if binding is not None and handler is not None:
            async for event in handler.run(call, binding.tool, self.turn, message_id):
                yield event
            return
        if binding is not None and isinstance(binding.descriptor, AnsweredTool):
            async for event in self._answered(call, binding, binding.descriptor):
                yield event
            return
        if binding is None:
            yield ToolCallFinished(
                ToolCallRecord(
                    id=call.id,
                    server="",
                    tool=call.name,
                    arguments=call.arguments,
                    result=f"No tool named {call.name} is available in this chat.",
                    is_error=True,
                    elapsed_seconds=0.0,
                )
            )
            return
        approval: Approval = "auto"
        config = self.agent.config if self.agent else None
        every_call = asks_every_call(config, self.tools.tools(), binding.server, binding.tool)
        if needs_approval(binding, self.policy, self.allowed_for_chat(), every_call=every_call):
            request = tool_approval(
                call.id,
                binding.server,
                binding.tool,
                call.arguments,
                agent=self.agent,
                tools=self.tools.tools(),
            )
            yield request
            decision = await request.wait()
            if decision is ApprovalDecision.DENY:
                yield ToolCallFinished(
                    ToolCallRecord(
                        id=call.id,
                        server=binding.server,
                        tool=binding.tool,
                        arguments=call.arguments,
                        result="The user denied this tool call.",
                        is_error=True,
                        approval="denied",
                    )
                )
                return
            if decision is ApprovalDecision.ALLOW_FOR_CHAT and not every_call:
                self.allow_for_chat(tool_ref(binding))
                approval = "allowed_for_chat"
            else:
                approval = "allowed_once"
        yield ToolCallStarted(call.id, binding.server, binding.tool, call.arguments)
        started = time.monotonic()
        relay = ProgressRelay(self.tools.call_tool(binding.server, binding.tool, call.arguments))
        progress = (ToolCallProgress(call.id, report) async for report in relay.events())
        # While the call runs: its progress and the sampling requests its server makes, as they come.
        async for event in interleaved(progress, self._sampling_during(relay.task, call.id, binding)):
            yield event
        try:
            outcome = await relay.task
        except (ContextDeskError, LookupError, OSError, TimeoutError) as error:
            failed, elapsed = f"The tool failed: {error}", time.monotonic() - started
            ended = call_ended(error)
            yield finished(
                call, binding.server, binding.tool, failed,
                is_error=True, elapsed=elapsed, approval=approval, ended=ended,
            )  # fmt: skip
            return
        ended, elapsed = outcome_ended(outcome), outcome.elapsed_seconds
        end = finished(
            call, binding.server, binding.tool, outcome.text,
            is_error=outcome.is_error, elapsed=elapsed, approval=approval, ended=ended,
        )  # fmt: skip
        if isinstance(outcome, RichOutcome):
            end = ToolCallFinished(with_rich_result(end.record, outcome))
        for ref in pulled_refs(
            self.agent, binding.server, binding.tool, call.arguments, failed=outcome.is_error
        ):
            yield ItemPulled(ref, call.id)  # a kind's item the call brought in (a loaded skill)
        yield end

    async def _sampling_during(
        self, running: asyncio.Future[ToolOutcome], call_id: str, binding: ToolBinding
    ) -> AsyncIterator[SamplingEvent]:
        """Until the call ends: the approvals and records of the sampling requests its server
        makes meanwhile (the router hands them to this call's handler)."""
        if self.router is None or self.sampling is None:
            await asyncio.wait({running})
            return
        events: asyncio.Queue[SamplingEvent] = asyncio.Queue()
        asked: list[ApprovalRequest] = []
        handler = self.sampling.handler(call_id, binding.tool, events.put_nowait)
        try:
            with self.router.handling(binding.server, handler):
                while not running.done() or not events.empty():
                    next_event = asyncio.ensure_future(events.get())
                    either: list[asyncio.Future[Any]] = [running, next_event]
                    await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
                    if next_event.done():
                        event = next_event.result()
                        if isinstance(event, ApprovalRequest):
                            asked.append(event)
                        yield event
                    else:
                        next_event.cancel()
        finally:
            if not running.done():
                running.cancel()  # the reply stopped while the call ran
            for request in asked:
                # Unanswered when the call ended (stopped, timed out): the server is refused.
                request.decide(ApprovalDecision.DENY)

    async def _answered(
        self, call: ToolCall, binding: ToolBinding, tool: AnsweredTool
    ) -> AsyncIterator[ToolCallEvent]:
        """A tool the request answers itself; the item its answer pulls joins the reply's context."""
        yield ToolCallStarted(call.id, binding.server, binding.tool, call.arguments)
        started = time.monotonic()
        try:
            answer = await tool.answer(call.arguments)
        except (ContextDeskError, LookupError, OSError, ValueError) as error:  # a plug-in's fault
            answer = ToolAnswer(f"The tool failed: {error}", is_error=True)
        if answer.pulled is not None:
            yield ItemPulled(answer.pulled, call.id)
        elapsed = time.monotonic() - started
        yield finished(
            call, binding.server, binding.tool, answer.text, is_error=answer.is_error, elapsed=elapsed
        )


def finished(
    call: ToolCall,
    server: str,
    tool: str,
    result: str,
    *,
    is_error: bool,
    elapsed: float,
    approval: Approval = "auto",
    ended: str = "",
) -> ToolCallFinished:
    """The end of one tool call, as every kind of call (MCP tool, sub-agent, workflow, catalogue)
    records it."""
    return ToolCallFinished(
        ToolCallRecord(
            id=call.id,
            server=server,
            tool=tool,
            arguments=call.arguments,
            result=kept_result(result),  # bounded: what the chat keeps and shows
            is_error=is_error,
            elapsed_seconds=round(elapsed, 4),
            approval=approval,
            ended=ended,
        )
    )


def with_rich_result(record: ToolCallRecord, outcome: RichOutcome) -> ToolCallRecord:
    """``record`` with what the chat shows beyond the text: structured content (dropped when its
    JSON is too big to keep, which the problem then says) and the bounded non-text parts."""
    structured, problem = outcome.structured, outcome.structured_problem
    if structured is not None and len(json.dumps(structured, default=str)) > MAX_KEPT_STRUCTURED:
        structured = None
        problem = problem or "The structured content is too big to show; the model read the start of it."
    return replace(
        record,
        structured=structured,
        structured_problem=problem,
        parts=kept_parts(outcome.content),
        ui_resource_uri=outcome.ui_resource_uri,
    )


def pending_record(call: ToolCall, prompt: Prompt) -> ToolCallRecord:
    """The record of a call that has not run yet (saved so a crash shows it as interrupted)."""
    binding = prompt.binding(call.name)
    return ToolCallRecord(
        id=call.id,
        server=binding.server if binding else "",
        tool=binding.tool if binding else call.name,
        arguments=call.arguments,
    )


async def interleaved(*sources: AsyncIterator[E]) -> AsyncIterator[E]:
    """The items of ``sources`` as each comes, until all have ended; an error in one is raised
    here, and leaving early stops them all (their own clean-up runs)."""
    queue: asyncio.Queue[tuple[str, object]] = asyncio.Queue()

    async def pump(source: AsyncIterator[E]) -> None:
        try:
            async for item in source:
                queue.put_nowait(("item", item))
        except Exception as error:  # noqa: BLE001 - handed to the consumer below and raised there
            queue.put_nowait(("error", error))
        finally:
            queue.put_nowait(("end", None))

    tasks = [asyncio.ensure_future(pump(source)) for source in sources]
    running = len(tasks)
    try:
        while running:
            kind, value = await queue.get()
            if kind == "end":
                running -= 1
            elif kind == "error":
                assert isinstance(value, Exception)
                raise value
            else:
                yield value  # type: ignore[misc]
    finally:
        for task in tasks:
            task.cancel()
