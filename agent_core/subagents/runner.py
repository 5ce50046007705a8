"""Running a sub-agent for one tool call of a parent chat.

The child is a real chat (stored, linked to the parent's message and call), built by the same
code as any chat from its own agent view: the sub-agent's prompt as system prompt, only the rules
and references handed down, only its allow-listed tools. The runtime enforces its caps (turns,
tokens, time); a cap reached stops the child and its text so far is the result, with the cap
named. Cancelling the parent cancels the child (it runs inside the parent's task), and so on down.
Only the result (validated against ``output`` when given) and a one-line summary go back.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agent_core.agent.subagent_files.definition import Subagent
from agent_core.chat.events import (
    ApprovalDecision,
    ApprovalRequest,
    ReplyFinished,
    RequestSent,
    SubagentFinished,
    SubagentProgress,
    SubagentStarted,
    ToolCallStarted,
    TurnSaved,
)
from agent_core.chat.reply_provenance import chat_provenance
from agent_core.chat.services import ChatServices
from agent_core.chat.tool_calls import finished
from agent_core.chat.tool_handlers import MessageTurn, ToolCallEvent, ToolHandlerFactory
from agent_core.context.items import Delegation, StoppedBy, TokenUsage
from agent_core.context.session_context import initial_session_items
from agent_core.errors import ContextDeskError
from agent_core.providers.base import ToolCall
from agent_core.store.chats import ChildLink, StoredMessage
from agent_core.subagents.budget import FanOutBudget, add_usage, total_tokens
from agent_core.subagents.child_context import background, base_agent, child_agent, resolve_model, task_of
from agent_core.subagents.model_check import NOT_RUN, limited_model_question
from agent_core.subagents.output_schema import json_text, schema_problem
from agent_core.subagents.tools import SUBAGENT_SERVER, AllowListedTools, subagent_tools
from agent_core.tools.runtime import ToolRuntime

if TYPE_CHECKING:
    from agent_core.chat.session import ChatSession

__all__ = ["DelegationEvent", "Delegator", "Nesting", "delegation_result"]

logger = logging.getLogger(__name__)

#: What a running child reports up to its parent's reply (its own and its children's).
DelegationEvent = ApprovalRequest | SubagentStarted | SubagentProgress | SubagentFinished

PATH_SEPARATOR = " › "


@dataclass(frozen=True)
class Nesting:
    """Where a chat sits in a tree of sub-agents: depth 0 is the user's chat."""

    depth: int = 0
    origin: str = ""  # the sub-agent path, "" for the user's chat
    limit: int | None = None  # the deepest a descendant may run; None: the sub-agents' own maxDepth
    budget: FanOutBudget | None = None  # shared by the tree under one message (None: the user's chat)


@dataclass
class _Run:
    """What one child did so far."""

    started: float = field(default_factory=time.monotonic)
    turns: int = 0
    usage: TokenUsage = field(default_factory=TokenUsage)
    children_usage: TokenUsage = field(default_factory=TokenUsage)
    text: str = ""
    stopped_by: StoppedBy = ""
    note: str = ""
    budget: FanOutBudget = field(default_factory=FanOutBudget)  # of the tree it belongs to

    @property
    def tokens(self) -> int:
        return total_tokens(self.usage) + total_tokens(self.children_usage)

    def total_usage(self) -> TokenUsage:
        return add_usage(self.usage, self.children_usage)

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started


class Delegator:
    """Runs the sub-agents of one chat's replies (the chat is their parent): the chat's tool
    handler for the ``subagents`` server (``chat.tool_handlers.ToolHandler``)."""

    server = SUBAGENT_SERVER
    side_by_side = True  # the sub-agents one turn starts run side by side, each up to maxParallel

    def __init__(self, parent: ChatSession, nesting: Nesting | None = None) -> None:
        """``nesting``: where ``parent`` sits under the user's chat (None: it is the user's chat)."""
        self.parent = parent
        self.nesting = nesting or Nesting()
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._running: dict[str, asyncio.Task[None]] = {}  # by call id
        self._turn: MessageTurn | None = None
        self.budget = self.nesting.budget or FanOutBudget()

    @classmethod
    def nested(cls, nesting: Nesting) -> ToolHandlerFactory:
        """The handler a child chat at ``nesting`` gets, for the sub-agents it may nest into."""
        return lambda session: cls(session, nesting)

    def cancel(self, call_id: str) -> bool:
        """Stop the child started by ``call_id`` (and its children); its text so far becomes its
        result, marked cancelled, and the parent's reply goes on. False when it is not running.
        Call on the event loop's thread."""
        driver = self._running.get(call_id)
        if driver is None or driver.done():
            return False
        driver.cancel()
        return True

    async def run(
        self, call: ToolCall, tool: str, turn: MessageTurn, reply_id: int | None
    ) -> AsyncIterator[ToolCallEvent]:
        """A sub-agent tool call: the child's events pass up; its result is the tool's result."""
        yield ToolCallStarted(call.id, SUBAGENT_SERVER, tool, call.arguments)
        started = time.monotonic()
        delegation: Delegation | None = None
        task = task_of({} if turn.routed else call.arguments, turn.text)
        question = await limited_model_question(self.parent, tool, call.id, task, self.nesting.origin)
        if question is not None:
            yield question
            if await question.wait() is ApprovalDecision.DENY:
                yield finished(
                    call, SUBAGENT_SERVER, tool, NOT_RUN, is_error=True, elapsed=time.monotonic() - started
                )
                return
        try:
            async for event in self.delegate(call.id, tool, call.arguments, reply_id, turn):
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
            call, SUBAGENT_SERVER, tool, result, is_error=is_error, elapsed=time.monotonic() - started
        )

    async def delegate(
        self,
        call_id: str,
        name: str,
        arguments: Mapping[str, Any],
        parent_message_id: int | None,
        turn: MessageTurn,
    ) -> AsyncIterator[DelegationEvent | Delegation]:
        """Events of the child, then its Delegation (whose ``result`` is the tool's result).
        ``turn``: the message being answered (its text is the task when a routed model gives none)."""
        if turn is not self._turn:
            self._turn = turn
            if self.nesting.budget is None:  # the user's chat: a new message, a new budget
                self.budget = FanOutBudget.of(self.parent.settings.chat)
        subagent = self.parent.agent.subagents.get(name)
        if subagent is None:
            raise LookupError(f"no sub-agent named {name} in this agent")
        task = task_of({} if turn.routed else arguments, turn.text)
        slot = self._slots.setdefault(name, asyncio.Semaphore(subagent.limits.max_parallel))
        async with slot:
            async for event in self._run(subagent, task, call_id, parent_message_id):
                yield event

    async def run_definition(
        self,
        subagent: Subagent,
        task: str,
        call_id: str,
        *,
        granted: Callable[[ToolRuntime], ToolRuntime] | None = None,
    ) -> AsyncIterator[DelegationEvent | Delegation]:
        """Run ``subagent`` (a file's or one made on the spot, e.g. a workflow's assistant) on
        ``task``, exactly as a delegation runs, with a budget of its own (a workflow bounds its
        steps itself). ``granted`` adds tools beyond its allow-list (a workflow assistant's own
        servers): it wraps the child's tools."""
        async for event in self._run(subagent, task, call_id, None, granted, own_budget=True):
            yield event

    async def _run(
        self,
        subagent: Subagent,
        task: str,
        call_id: str,
        parent_message_id: int | None,
        granted: Callable[[ToolRuntime], ToolRuntime] | None = None,
        *,
        own_budget: bool = False,
    ) -> AsyncIterator[DelegationEvent | Delegation]:
        budget = FanOutBudget.of(self.parent.settings.chat) if own_budget else self.budget
        budget.admit(subagent.name)  # FanOutLimitError: the tool's result says why
        parent = self.parent
        origin = (
            f"{self.nesting.origin}{PATH_SEPARATOR}{subagent.name}" if self.nesting.origin else subagent.name
        )
        depth = self.nesting.depth + 1
        limit = (
            subagent.limits.max_depth
            if self.nesting.limit is None
            else min(self.nesting.limit, subagent.limits.max_depth)
        )
        model, model_note = resolve_model(subagent, parent.agent, parent.settings.chat.model)
        base, base_note = base_agent(parent.agent, subagent)
        model_note = _join(model_note, base_note)
        agent = child_agent(base, subagent, model, may_nest=depth < limit)
        inner = getattr(parent.services.tools, "inner", parent.services.tools)
        tools: ToolRuntime = AllowListedTools(
            inner,
            subagent,
            subagent_tools(agent.subagents) if agent.subagents else (),
            chat_servers=frozenset(parent.tool_handlers),
        )
        if granted is not None:
            tools = granted(tools)
        services = ChatServices(
            resolve_provider=parent.services.resolve_provider,
            selector=parent.services.selector,
            tools=tools,
            streamer=parent.services.streamer,
            memories=None,  # a sub-agent recalls and writes no long-term memories
            # Sub-agents of its own while nesting is allowed; never a workflow (its assistants
            # are children themselves).
            tool_handlers=(Delegator.nested(Nesting(depth, origin, limit, budget)),),
        )
        handed_down, context_note = background(parent, subagent)
        record = parent.store.create_session(
            agent_path=str(parent.agent.root),
            title=f"{subagent.name}: {' '.join(task.split())[:60]}",
            context_items=initial_session_items(agent, tools.tools()),
            parent=ChildLink(parent.id, parent_message_id, call_id, subagent.name),
        )
        child = type(parent)(agent, parent.store, record, services)
        if subagent.inherit_approvals:
            child.inherited_allowed = lambda: parent.allowed_tools
        yield SubagentStarted(call_id, subagent.name, task, subagent.context, child.id, self.nesting.origin)
        run = _Run(note="; ".join(n for n in (model_note, context_note) if n), budget=budget)
        message = f"{handed_down}{task}" if handed_down else task
        # The child runs in a task of its own, its events coming through a queue: its time cap
        # then cancels only the child, never whatever the parent does between two events.
        events: asyncio.Queue[DelegationEvent | None] = asyncio.Queue()
        driver = asyncio.create_task(self._drive(child, subagent, message, run, call_id, origin, events))
        self._running[call_id] = driver
        try:
            while (event := await events.get()) is not None:
                yield event
            try:
                await driver
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if current is not None and current.cancelling():
                    raise  # the parent is being cancelled: so is everything under it
                run.stopped_by = "cancelled"  # only this child was (Delegator.cancel)
                run.text = run.text or _last_reply(child)
        finally:
            self._running.pop(call_id, None)
            if not driver.done():
                run.stopped_by = "cancelled"
                driver.cancel()
                await asyncio.wait([driver])
            await asyncio.shield(child.close())
        if run.stopped_by and not (run.stopped_by == "maxTokens" and run.tokens < subagent.limits.max_tokens):
            run.note = _join(run.note, _stop_note(run.stopped_by, subagent))
        run.note = _join(run.note, budget.note)  # every run that ends past the message's limit
        delegation = Delegation(
            call_id=call_id,
            subagent=subagent.name,
            task=task,
            context_mode=subagent.context,
            child_session_id=child.id,
            model=model,
            usage=run.total_usage(),
            turns=run.turns,
            elapsed_seconds=round(run.elapsed, 3),
            stopped_by=run.stopped_by,
            result=run.text,
            note=run.note,
            provenance=chat_provenance(parent.store.messages(child.id)),
        )
        yield SubagentFinished(delegation, self.nesting.origin)
        yield delegation

    async def _drive(
        self,
        child: ChatSession,
        subagent: Subagent,
        message: str,
        run: _Run,
        call_id: str,
        origin: str,
        events: asyncio.Queue[DelegationEvent | None],
    ) -> None:
        try:
            async with asyncio.timeout(subagent.limits.timeout_seconds):
                async for event in self._turns(child, subagent, message, run, call_id, origin):
                    events.put_nowait(event)
                if subagent.output_schema is not None and not run.stopped_by:
                    async for event in self._validated(child, subagent, run, call_id, origin):
                        events.put_nowait(event)
        except TimeoutError:
            run.stopped_by = "timeout"
            run.text = run.text or _last_reply(child)
        except ContextDeskError as error:
            run.stopped_by, run.note = "error", _join(run.note, str(error))
        finally:
            events.put_nowait(None)

    async def _turns(
        self, child: ChatSession, subagent: Subagent, message: str, run: _Run, call_id: str, origin: str
    ) -> AsyncIterator[DelegationEvent]:
        """One message to the child, its events passed up, its caps enforced after each turn."""
        replies = child.send(message)
        try:
            async for event in replies:
                if isinstance(event, ApprovalRequest):
                    event.origin = f"{origin}{PATH_SEPARATOR}{event.origin}" if event.origin else origin
                    yield event
                elif isinstance(event, SubagentStarted | SubagentProgress | SubagentFinished):
                    if isinstance(event, SubagentFinished):
                        run.children_usage = add_usage(run.children_usage, event.delegation.usage)
                    yield event
                elif isinstance(event, RequestSent):
                    run.budget.sending(child.id, event.message.request_context)
                elif isinstance(event, ToolCallStarted):
                    yield self._progress(call_id, subagent, run, f"calling {event.server}.{event.tool}")
                elif isinstance(event, TurnSaved | ReplyFinished):
                    self._count(run, event.message)
                    yield self._progress(call_id, subagent, run)
                    if isinstance(event, ReplyFinished):
                        run.text = event.message.content or event.message.error or ""
                        if event.message.status == "error" and "maxChatTurns" in (event.message.error or ""):
                            run.stopped_by = "maxTurns"
                            run.text = _last_reply(child) or run.text
                        elif event.message.status in ("error", "partial") and not run.stopped_by:
                            run.stopped_by = "error"
                        return
                    if run.tokens >= subagent.limits.max_tokens or run.budget.tokens_spent:
                        run.stopped_by = "maxTokens"
                        run.text = _last_reply(child)
                        return
        except asyncio.CancelledError:
            run.stopped_by = "cancelled"
            run.text = run.text or _last_reply(child)
            raise
        finally:
            await replies.aclose()  # stops the child's reply: no request after a cap or a cancel

    async def _validated(
        self, child: ChatSession, subagent: Subagent, run: _Run, call_id: str, origin: str
    ) -> AsyncIterator[DelegationEvent]:
        """The child's answer checked against its ``output`` schema, with one repair attempt."""
        assert subagent.output_schema is not None
        problem = schema_problem(run.text, subagent.output_schema)
        if problem is None:
            run.text = json_text(run.text)
            return
        repair = (
            f"Your answer does not match the required output: {problem}. Reply with only the JSON "
            f"value, matching this JSON schema:\n{json.dumps(subagent.output_schema)}"
        )
        async for event in self._turns(child, subagent, repair, run, call_id, origin):
            yield event
        if run.stopped_by:
            return
        problem = schema_problem(run.text, subagent.output_schema)
        if problem is None:
            run.text = json_text(run.text)
        else:
            run.stopped_by = "error"
            run.note = _join(
                run.note, f"the answer did not match the output schema after one repair: {problem}"
            )

    def _count(self, run: _Run, message: StoredMessage) -> None:
        run.turns += 1
        context = message.request_context
        if context is not None:
            run.usage = context.usage  # cumulative over the reply's turns
            run.budget.spent(message.session_id, run.usage)

    def _progress(self, call_id: str, subagent: Subagent, run: _Run, activity: str = "") -> SubagentProgress:
        return SubagentProgress(
            call_id,
            subagent.name,
            run.turns,
            run.total_usage(),
            round(run.elapsed, 3),
            activity,
            self.nesting.origin,
        )


def _last_reply(child: ChatSession) -> str:
    """The newest assistant text of the child (what it has when a cap stops it)."""
    for stored in reversed(child.store.messages(child.id, with_contexts=False)):
        if stored.role == "assistant" and stored.content.strip():
            return stored.content
    return ""


def _stop_note(stopped_by: StoppedBy, subagent: Subagent) -> str:
    limits = subagent.limits
    return {
        "maxTurns": f"stopped at its turn cap (limits.maxTurns {limits.max_turns})",
        "maxTokens": f"stopped at its token cap (limits.maxTokens {limits.max_tokens:,})",
        "timeout": f"stopped at its time cap (limits.timeoutSeconds {limits.timeout_seconds:g})",
        "cancelled": "cancelled",
        "error": "it failed",
    }.get(stopped_by, "")


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def delegation_result(delegation: Delegation) -> str:
    """What the parent's model reads of a sub-agent: its result and one line about the run."""
    tokens = delegation.usage.total
    ended = f"stopped: {delegation.note}" if delegation.stopped_by else "finished"
    if delegation.provenance is not None and not delegation.provenance.grounded:
        ended += "; it answered without using any tool"
    summary = (
        f"[sub-agent {delegation.subagent}: {ended}; {delegation.turns} turns, {tokens:,} tokens, "
        f"{delegation.elapsed_seconds:.1f} s]"
    )
    return f"{delegation.result.strip()}\n{summary}" if delegation.result.strip() else summary
