"""The supervisor of an autonomous run: a chat of its own whose only tools are the workflow's
assistants as sub-agents (``subagents.ASSISTANT``). Each call it makes is a delegation run by the
sub-agent machinery (an isolated child chat with its caps, cancel and transcript), one after the
other as in CodeMie, and kept as a step; a delegation past the workflow's limits is refused and
stops the run. Its reply without a tool call is the run's final answer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agent_core.agent.schema import IncludeMode
from agent_core.agent.subagent_files.definition import Subagent, SubagentLimits
from agent_core.chat.events import (
    ApprovalRequest,
    ReplyFinished,
    SubagentFinished,
    SubagentProgress,
    SubagentStarted,
    ToolCallStarted,
    TurnSaved,
)
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.chat.tool_calls import finished
from agent_core.chat.tool_handlers import MessageTurn, ToolCallEvent
from agent_core.context.session_context import initial_session_items
from agent_core.providers.base import ToolCall
from agent_core.store.records import ChildLink
from agent_core.subagents.budget import FanOutBudget
from agent_core.subagents.child_context import child_agent
from agent_core.subagents.runner import Delegator, Nesting
from agent_core.subagents.tools import SUBAGENT_SERVER, AllowListedTools, subagent_tools
from agent_core.tools.runtime import ToolDescriptor, ToolOutcome, ToolRuntime
from agent_core.workflows.assistant_state import assistant_definition, host_chat
from agent_core.workflows.autonomous.steps import SUPERVISOR, DelegationSteps
from agent_core.workflows.errors import WorkflowError
from agent_core.workflows.limits import Stopped
from agent_core.workflows.output_review import NeedsReview
from agent_core.workflows.workflow_run import WorkflowRun

__all__ = ["supervised_walk", "supervisor_prompt", "team_of"]

_INSTRUCTIONS = (
    "You supervise a team of assistants: {members}. You do not do the work yourself. Split the "
    "user's task into sub-tasks and give each to one assistant by calling its tool, with the whole "
    "sub-task, self-contained (an assistant sees nothing but the task you write, so include what "
    "it needs from earlier results). Call one assistant at a time, read its result, then give the "
    "next sub-task or finish. Do not call an assistant again once the task is resolved. To finish, "
    "reply without calling a tool: your reply is the final result, built from the assistants' "
    "results only (add no fact they did not give).\n\nYour team:\n{team}"
)


def team_of(assistants: Mapping[str, Subagent]) -> str:
    return "\n".join(f"- {name}: {subagent.description}" for name, subagent in assistants.items())


def supervisor_prompt(run: WorkflowRun, assistants: Mapping[str, Subagent]) -> str:
    """ContextDesk's instructions (how to delegate and finish), then the workflow's own."""
    head = _INSTRUCTIONS.format(members=", ".join(assistants), team=team_of(assistants))
    own = (run.spec.supervisor_prompt or "").strip()
    return f"{head}\n\n{own}" if own else head


def _assistants(run: WorkflowRun) -> dict[str, Subagent]:
    """Each assistant of the workflow as the supervisor's sub-agent, named by its id."""
    found: dict[str, Subagent] = {}
    for config in run.spec.assistants:
        subagent = assistant_definition(run, config.id, where=f"assistant '{config.id}'")
        about = " ".join((config.system_prompt or subagent.description or "").split())
        about = about if len(about) <= 300 else about[:299] + "…"
        label = f"{config.name} - " if config.name else ""
        found[config.id] = replace(
            subagent, name=config.id, description=f"{label}{about}", include=IncludeMode.ALWAYS
        )
    return found


@dataclass(frozen=True)
class _SupervisorTools:
    """The supervisor sees only its assistants; ``inner`` (the chat's own tools) is what each
    assistant's allow-list is taken from."""

    inner: ToolRuntime
    assistants: Mapping[str, Subagent]

    def tools(self) -> Sequence[ToolDescriptor]:
        return subagent_tools(self.assistants)

    async def call_tool(self, server: str, tool: str, arguments: Mapping[str, Any]) -> ToolOutcome:
        raise LookupError(f"the supervisor only delegates to its assistants: {server}.{tool} is not its tool")


class _SupervisorDelegator(Delegator):
    """The supervisor's delegations, one at a time, each admitted against the workflow's caps
    first; a refused one is the tool's error result and stops the run (``steps.stopped``)."""

    side_by_side = False

    def __init__(self, parent: ChatSession, nesting: Nesting, steps: DelegationSteps) -> None:
        super().__init__(parent, nesting)
        self.steps = steps

    async def run(
        self, call: ToolCall, tool: str, turn: MessageTurn, reply_id: int | None
    ) -> AsyncIterator[ToolCallEvent]:
        try:
            self.steps.admit(tool)
        except Stopped as stop:
            self.steps.stopped = str(stop)
            yield ToolCallStarted(call.id, SUBAGENT_SERVER, tool, call.arguments)
            yield finished(call, SUBAGENT_SERVER, tool, f"Not run: {stop}", is_error=True, elapsed=0.0)
            return
        async for event in super().run(call, tool, turn, reply_id):
            yield event


def _supervisor_chat(
    run: WorkflowRun, host: ChatSession, steps: DelegationSteps, assistants: dict[str, Subagent], task: str
) -> ChatSession:
    limits = run.spec.limits
    definition = Subagent(
        name=SUPERVISOR,
        description=f"the supervisor of workflow {run.workflow.name}",
        prompt=supervisor_prompt(run, assistants),
        tools=(),
        # A turn per delegation and one to finish: past that it has gone round without finishing.
        limits=SubagentLimits(max_turns=limits.max_steps + 1, max_tokens=limits.max_tokens),
    )
    agent = child_agent(
        replace(run.agent, subagents=assistants), definition, host.settings.chat.model, may_nest=True
    )
    tools = _SupervisorTools(getattr(host.services.tools, "inner", host.services.tools), assistants)
    # The assistants run one level under it and start no sub-agents of their own.
    nesting = Nesting(1, SUPERVISOR, 2, FanOutBudget(limits.max_steps + 1, limits.max_tokens))
    services = ChatServices(
        resolve_provider=host.services.resolve_provider,
        selector=host.services.selector,
        tools=tools,
        streamer=host.services.streamer,
        memories=None,
        tool_handlers=(lambda chat: _SupervisorDelegator(chat, nesting, steps),),
    )
    record = run.chats.create_session(
        agent_path=str(run.agent.root),
        title=f"{SUPERVISOR} of {run.workflow.name}: {' '.join(task.split())[:60]}",
        context_items=initial_session_items(agent, tools.tools()),
        parent=ChildLink(host.id, None, f"{run.run_id}-{SUPERVISOR}", SUPERVISOR),
    )
    return ChatSession(agent, run.chats, record, services)


def _granted_tools(host: ChatSession, assistants: Mapping[str, Subagent]) -> dict[str, list[str]]:
    """The agent's tools each assistant may use (``server.tool``): an assistant given some is
    expected to use them."""
    inner = getattr(host.services.tools, "inner", host.services.tools)
    return {
        name: [f"{t.server}.{t.name}" for t in AllowListedTools(inner, subagent).tools()]
        for name, subagent in assistants.items()
    }


async def supervised_walk(run: WorkflowRun, steps: DelegationSteps, task: str) -> AsyncIterator[Any]:
    """The supervisor's chat on ``task``: its delegations as steps, the events of its assistants'
    chats and approvals, then the final store; (store, history) tuples as they change.

    Raises:
        Stopped: a cap (a refused delegation, or the supervisor's turn cap).
        NeedsReview: the run did not end on the assistants' grounded work.
        WorkflowError: the supervisor's chat failed.
    """
    host = host_chat(run)
    assistants = _assistants(run)
    granted = _granted_tools(host, assistants)
    chat = _supervisor_chat(run, host, steps, assistants, task)
    replies = chat.send(task)
    answer = None
    counted = 0  # the supervisor's own tokens so far, counted after each of its turns
    try:
        async for event in replies:
            if isinstance(event, SubagentStarted) and event.origin == SUPERVISOR:
                yield steps.started(event.call_id, event.subagent)
            if isinstance(event, SubagentFinished) and event.origin == SUPERVISOR:
                delegation = event.delegation
                yield steps.finished(delegation, tools=granted.get(delegation.subagent, ()))
                yield (steps.store, steps.history)
            if isinstance(event, ApprovalRequest | SubagentStarted | SubagentProgress | SubagentFinished):
                yield event
            elif isinstance(event, TurnSaved | ReplyFinished):
                context = event.message.request_context
                if context is not None:  # cumulative over the reply's turns
                    run.limits.tokens += context.usage.total - counted
                    counted = context.usage.total
                if isinstance(event, ReplyFinished):
                    answer = event.message
            if steps.stopped:
                raise Stopped(steps.stopped)
            run.limits.stop_if_over()
    finally:
        await replies.aclose()
        await chat.close()
    if answer is None or answer.status != "complete":
        error = (answer.error if answer is not None else "") or "it ended without an answer"
        if "maxChatTurns" in error:
            raise Stopped(
                f"stopped: the supervisor took {run.spec.limits.max_steps + 1} turns (limits.maxSteps + 1) "
                "without finishing; raise limits.maxSteps in the workflow file if it needs more"
            )
        raise WorkflowError(f"the supervisor's chat failed: {error}")
    problem = steps.finish(answer.content)
    yield (steps.store, steps.history)
    if problem:
        raise NeedsReview(problem)
