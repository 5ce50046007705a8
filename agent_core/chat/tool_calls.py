"""Running the tool calls of one model turn: find the tool, ask for approval when the policy says
so, call it, and record what happened (a failure is a result the model sees, never a crash)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_core.agent.schema import ToolPermissionPolicy
from agent_core.chat.approvals import call_target, needs_approval, tool_ref
from agent_core.chat.events import (
    ApprovalDecision,
    ApprovalRequest,
    ItemPulled,
    SubagentFinished,
    SubagentProgress,
    SubagentStarted,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallStarted,
    WorkflowProgress,
    WorkflowRunFinished,
)
from agent_core.chat.item_pulls import CONTEXT_SERVER, read_item
from agent_core.chat.progress_relay import ProgressRelay
from agent_core.chat.prompt import Prompt, ToolBinding
from agent_core.chat.tool_runtime import ToolRuntime
from agent_core.context.items import Delegation, ItemRef
from agent_core.errors import ContextDeskError
from agent_core.providers.base import ToolCall
from agent_core.store.chats import Approval, ToolCallRecord
from agent_core.subagents.tools import SUBAGENT_SERVER
from agent_core.workflows.tools import WORKFLOW_SERVER

if TYPE_CHECKING:
    from agent_core.agent.agent import Agent
    from agent_core.subagents.runner import Delegator
    from agent_core.workflows.chat_runs import ChatWorkflows

__all__ = ["ToolCaller", "delegation_result", "finished", "pending_record"]

ToolCallEvent = (
    ToolCallStarted
    | ApprovalRequest
    | ToolCallProgress
    | ToolCallFinished
    | SubagentStarted
    | SubagentProgress
    | SubagentFinished
    | WorkflowProgress
    | WorkflowRunFinished
    | ItemPulled
)


@dataclass(frozen=True)
class ToolCaller:
    """How one chat runs tools: its runtime, its policy, what it allowed, and how to remember an
    'allow for this chat'."""

    tools: ToolRuntime
    policy: ToolPermissionPolicy
    allowed_for_chat: Callable[[], Collection[ItemRef]]  # read per call: an allow applies at once
    allow_for_chat: Callable[[ItemRef], None]
    delegator: Delegator | None = None  # runs the calls of sub-agent tools
    workflows: ChatWorkflows | None = None  # runs the calls of workflow tools
    agent: Agent | None = None  # the chat's agent: ``context.read_item`` reads its rules and references

    def delegates(self, call: ToolCall, prompt: Prompt) -> bool:
        """Whether ``call`` starts a sub-agent (such calls of one turn may run side by side)."""
        binding = prompt.binding(call.name)
        return binding is not None and binding.server == SUBAGENT_SERVER and self.delegator is not None

    async def run(
        self, call: ToolCall, prompt: Prompt, message_id: int | None = None
    ) -> AsyncIterator[ToolCallEvent]:
        """Events for one call, ending with its ToolCallFinished; ``message_id`` is the reply
        that made the call (a sub-agent's chat links to it)."""
        binding = prompt.binding(call.name)
        if binding is not None and binding.server == SUBAGENT_SERVER and self.delegator is not None:
            async for event in self._delegate(call, binding.tool, message_id):
                yield event
            return
        if binding is not None and binding.server == CONTEXT_SERVER and self.agent is not None:
            async for event in self._read_item(call, binding):
                yield event
            return
        if binding is not None and binding.server == WORKFLOW_SERVER and self.workflows is not None:
            async for event in self.workflows.call(call.id, binding.tool, call.arguments):
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
        if needs_approval(binding, self.policy, self.allowed_for_chat()):
            request = ApprovalRequest(
                call_id=call.id,
                server=binding.server,
                tool=binding.tool,
                arguments=call.arguments,
                target=call_target(self.agent.config if self.agent else None, binding.server, binding.tool),
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
            if decision is ApprovalDecision.ALLOW_FOR_CHAT:
                self.allow_for_chat(tool_ref(binding))
                approval = "allowed_for_chat"
            else:
                approval = "allowed_once"
        yield ToolCallStarted(call.id, binding.server, binding.tool, call.arguments)
        started = time.monotonic()
        relay = ProgressRelay(self.tools.call_tool(binding.server, binding.tool, call.arguments))
        try:
            async for progress in relay.events():
                yield ToolCallProgress(call.id, progress)
            outcome = await relay.task
            result, is_error, elapsed = outcome.text, outcome.is_error, outcome.elapsed_seconds
        except (ContextDeskError, LookupError, OSError, TimeoutError) as error:
            result, is_error, elapsed = f"The tool failed: {error}", True, time.monotonic() - started
        yield finished(
            call, binding.server, binding.tool, result, is_error=is_error, elapsed=elapsed, approval=approval
        )

    async def _read_item(self, call: ToolCall, binding: ToolBinding) -> AsyncIterator[ToolCallEvent]:
        """``context.read_item``: the text of a rule or reference the catalogue offered."""
        assert self.agent is not None
        yield ToolCallStarted(call.id, binding.server, binding.tool, call.arguments)
        offered = binding.spec.input_schema.get("properties", {}).get("name", {}).get("enum", [])
        try:
            ref, text = read_item(self.agent, call.arguments, offered)
        except LookupError as error:
            text, is_error = f"The tool failed: {error}", True
        else:
            is_error = False
            yield ItemPulled(ref, call.id)
        yield finished(call, binding.server, binding.tool, text, is_error=is_error, elapsed=0.0)

    async def _delegate(
        self, call: ToolCall, name: str, message_id: int | None
    ) -> AsyncIterator[ToolCallEvent]:
        """A sub-agent tool call: the child's events pass up; its result is the tool's result."""
        assert self.delegator is not None
        yield ToolCallStarted(call.id, SUBAGENT_SERVER, name, call.arguments)
        started = time.monotonic()
        delegation: Delegation | None = None
        try:
            async for event in self.delegator.run(call.id, name, call.arguments, message_id):
                if isinstance(event, Delegation):
                    delegation = event
                else:
                    yield event
        except (ContextDeskError, LookupError) as error:
            result, is_error = f"The sub-agent could not run: {error}", True
        else:
            assert delegation is not None
            result, is_error = delegation_result(delegation), delegation.stopped_by == "error"
        yield finished(
            call, SUBAGENT_SERVER, name, result, is_error=is_error, elapsed=time.monotonic() - started
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
) -> ToolCallFinished:
    """The end of one tool call, as every kind of call (MCP tool, sub-agent, workflow, catalogue)
    records it."""
    return ToolCallFinished(
        ToolCallRecord(
            id=call.id,
            server=server,
            tool=tool,
            arguments=call.arguments,
            result=result,
            is_error=is_error,
            elapsed_seconds=round(elapsed, 4),
            approval=approval,
        )
    )


def delegation_result(delegation: Delegation) -> str:
    """What the parent's model reads of a sub-agent: its result and one line about the run."""
    tokens = (delegation.usage.input_tokens or 0) + (delegation.usage.output_tokens or 0)
    ended = f"stopped: {delegation.note}" if delegation.stopped_by else "finished"
    summary = (
        f"[sub-agent {delegation.subagent}: {ended}; {delegation.turns} turns, {tokens:,} tokens, "
        f"{delegation.elapsed_seconds:.1f} s]"
    )
    return f"{delegation.result.strip()}\n{summary}" if delegation.result.strip() else summary


def pending_record(call: ToolCall, prompt: Prompt) -> ToolCallRecord:
    """The record of a call that has not run yet (saved so a crash shows it as interrupted)."""
    binding = prompt.binding(call.name)
    return ToolCallRecord(
        id=call.id,
        server=binding.server if binding else "",
        tool=binding.tool if binding else call.name,
        arguments=call.arguments,
    )
