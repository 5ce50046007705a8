"""Running a workflow: its states one after the other over a shared context store.

Each assistant state runs in a chat of its own (built as a sub-agent's is, so it has a
RequestContext and View Context works on the step); each tool state calls its MCP tool, asking as
the chat would. A state's output is parsed (``parsing``), stored (``context_store``), appended to
the history its next states see, and recorded with everything needed to show it and re-run from
it. Undefined variables stop the run before any model is asked; the caps are the app's.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, replace
from typing import Any

from agent_core.agent.agent import Agent
from agent_core.agent.schema import ToolPermissionPolicy
from agent_core.async_streams import merged
from agent_core.chat.approvals import call_target
from agent_core.chat.events import WORKFLOW_GATE, WORKFLOW_ORIGIN, ApprovalDecision, ApprovalRequest
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.items import Delegation, ItemRef, TokenUsage
from agent_core.errors import ContextDeskError
from agent_core.store.chats import ChatStore, StoredSession
from agent_core.subagents.definition import Subagent, SubagentLimits
from agent_core.subagents.runner import DelegationEvent, schema_problem
from agent_core.workflows._sandbox import set_deadline
from agent_core.workflows.check import END
from agent_core.workflows.context_store import Transition, apply_output
from agent_core.workflows.errors import WorkflowError
from agent_core.workflows.limits import RunLimits
from agent_core.workflows.limits import Stopped as _Stopped
from agent_core.workflows.loader import Workflow
from agent_core.workflows.parsing import parse_output
from agent_core.workflows.records import HistoryMessage, StepRecord, WorkflowRunRecord
from agent_core.workflows.run_store import WorkflowRunStore
from agent_core.workflows.schema import WorkflowAssistantConfig, WorkflowInput, WorkflowState
from agent_core.workflows.servers import StateTools, server_configs, started_servers
from agent_core.workflows.templates import WorkflowTemplateError, condition, render

__all__ = [
    "MockOutputs",
    "StepFinished",
    "StepStarted",
    "WorkflowEngine",
    "WorkflowError",
    "WorkflowEvent",
    "WorkflowFinished",
    "dry_run",
    "initial_store",
]


@dataclass(frozen=True)
class StepStarted:
    run_id: str
    state_id: str
    item: Any = None


@dataclass(frozen=True)
class StepFinished:
    run_id: str
    step: StepRecord


@dataclass(frozen=True)
class WorkflowFinished:
    run: WorkflowRunRecord


WorkflowEvent = StepStarted | StepFinished | WorkflowFinished | DelegationEvent


class MockOutputs:
    """Outputs to answer assistant states with instead of a model, played in order (``--mock-outputs``)."""

    def __init__(self, entries: Sequence[Mapping[str, Any]]) -> None:
        self._entries = list(entries)

    def next_for(self, state_id: str) -> str:
        if not self._entries:
            raise WorkflowError(f"state '{state_id}': the mock outputs ran out; add one for it")
        entry = self._entries.pop(0)
        if entry.get("state_id") != state_id:
            raise WorkflowError(
                f"state '{state_id}' ran, but the next mock output is for '{entry.get('state_id')}': "
                "put the mock outputs in the order the states run"
            )
        output = entry.get("output", "")
        return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)


def initial_store(given: Any, inputs: Mapping[str, WorkflowInput]) -> dict[str, Any]:
    """The store before the first state: a JSON (or dict) input's root keys, checked against the
    declared ``inputs`` (defaults applied).

    Raises:
        WorkflowError: a required input is missing or has the wrong type.
    """
    value = parse_output(given).value if isinstance(given, str) else given
    store: dict[str, Any] = dict(value) if isinstance(value, dict) else {}
    types: dict[str, Callable[[Any], bool]] = {
        "string": lambda v: isinstance(v, str),
        "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "boolean": lambda v: isinstance(v, bool),
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
    }
    for name, declared in inputs.items():
        if name not in store:
            if declared.default is not None or not declared.required:
                store[name] = declared.default
                continue
            raise WorkflowError(
                f"the input '{name}' is required: give it in the JSON input ({{\"{name}\": …}})"
            )
        if not types[declared.type](store[name]):
            raise WorkflowError(
                f"the input '{name}' must be {declared.type}, not {type(store[name]).__name__}"
            )
    return store


class WorkflowEngine:
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
        self.workflow = workflow
        self.spec = workflow.spec
        self.agent = agent
        self.services = services
        self.chats = chats
        self.runs = runs
        self.mock = mock_outputs
        self.auto_approve = auto_approve
        self.host = host
        self.states = {s.id: s for s in self.spec.states}
        self.run_id = uuid.uuid4().hex[:16]
        self._limits = RunLimits(self.spec.limits)  # its steps are in the database, not kept here

    async def run(
        self, given: Any, *, resume_from: StepRecord | None = None
    ) -> AsyncIterator[WorkflowEvent | ApprovalRequest]:
        """Events of the run, ending with WorkflowFinished (also when it fails: the failed step
        and the error are in the record). With ``resume_from`` (a step of an earlier run), the
        run starts at that state with the store and history it had then."""
        self.runs.start(
            self.run_id, str(self.agent.root), self.workflow.name, given, mocked=self.mock is not None
        )
        store: dict[str, Any] = {}
        status, error = "finished", ""
        try:
            if resume_from is not None:
                if resume_from.state_id not in self.states:
                    raise WorkflowError(f"the workflow has no state '{resume_from.state_id}' any more")
                start, store, history = (
                    resume_from.state_id,
                    dict(resume_from.store_before),
                    resume_from.history_before,
                )
            else:
                store = initial_store(given, self.spec.inputs)
                text = given if isinstance(given, str) else json.dumps(given, ensure_ascii=False)
                start, history = self.spec.states[0].id, (HistoryMessage("user", text),)
            # The states run in a task of their own, their events through a queue: the time cap
            # then cancels only the run, never what the caller does between two events.
            events: asyncio.Queue[Any] = asyncio.Queue()
            driver = asyncio.create_task(self._drive(start, store, history, events))
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
            self.runs.finish(self.run_id, "cancelled", store, "cancelled")
            raise
        except (ContextDeskError, LookupError) as failure:
            status, error = ("stopped" if isinstance(failure, _Stopped) else "failed"), str(failure)
        self.runs.finish(self.run_id, status, store, error)  # type: ignore[arg-type]
        record = self.runs.run(self.run_id)
        assert record is not None
        yield WorkflowFinished(record)

    async def _drive(
        self,
        start: str,
        store: dict[str, Any],
        history: tuple[HistoryMessage, ...],
        events: asyncio.Queue[Any],
    ) -> None:
        try:
            set_deadline(time.monotonic() + self.spec.limits.timeout_seconds)  # held inside templates too
            async with asyncio.timeout(self.spec.limits.timeout_seconds):
                async for event in self._path(start, store, history):
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
            async for event in self._state(state, store, history):
                if isinstance(event, StepRecord):
                    step = event
                else:
                    yield event
            assert step is not None
            store, history = step.store_after, step.history_after
            yield (store, history)
            following = self._next(state, store)
            if state.next.iter_key:
                target = self.states[following[0]]
                async for event in self._iterate(state, target, store, history):
                    if isinstance(event, tuple):
                        store, history = event
                    yield event
                following = self._next(target, store)
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
        key = state.next.iter_key or ""
        items = _lookup(store, key)
        if not isinstance(items, list):
            raise WorkflowError(
                f"state '{state.id}': iter_key '{key}' is not a list in the store ({type(items).__name__})"
            )
        self._limits.before_items(target.id, key, len(items))
        width = min(target.parallel or 1, len(items)) or 1
        if width == 1:
            writes = _ItemWrites(target)
            for item in items:
                scoped = _scoped(store, item)
                step = None
                async for event in self._state(target, scoped, history, item=item):
                    if isinstance(event, StepRecord):
                        step = event
                    else:
                        yield event
                assert step is not None
                store = writes.add(store, _new_keys(scoped, step))  # the next item sees it
                history = step.history_after
                yield (store, history)
            return
        slot = asyncio.Semaphore(width)
        done: dict[int, StepRecord] = {}

        async def one(index: int, item: Any) -> AsyncIterator[Any]:
            async with slot:
                async for event in self._state(target, _scoped(store, item), history, item=item):
                    yield (index, event) if isinstance(event, StepRecord) else event

        async for event in merged([one(i, item) for i, item in enumerate(items)]):
            if isinstance(event, tuple):
                done[event[0]] = event[1]
            else:
                yield event
        store, history = _merge_items(target, store, history, [(items[i], done[i]) for i in sorted(done)])
        yield (store, history)

    def _next(self, state: WorkflowState, store: Mapping[str, Any]) -> list[str]:
        next_ = state.next
        where = f"state '{state.id}', next"
        if next_.state_id is not None:
            return [next_.state_id]
        if next_.state_ids is not None:
            return list(next_.state_ids)
        if next_.condition is not None:
            ok = condition(next_.condition.expression, store, where=where)
            return [next_.condition.then if ok else next_.condition.otherwise]
        assert next_.switch is not None
        for case in next_.switch.cases:
            if condition(case.condition, store, where=where):
                return [case.state_id]
        return [next_.switch.default]

    async def _state(
        self,
        state: WorkflowState,
        store: dict[str, Any],
        history: tuple[HistoryMessage, ...],
        item: Any = None,
    ) -> AsyncIterator[Any]:
        self._limits.before(state.id)
        yield StepStarted(self.run_id, state.id, item)
        started = time.monotonic()
        base = StepRecord(
            position=self._limits.steps,
            state_id=state.id,
            kind="tool" if state.tool_id else ("mock" if self.mock else "assistant"),
            store_before=dict(store),
            history_before=history,
            item=item,
        )
        undefined = self.spec.undefined
        try:
            task = (
                render(state.task, store, where=f"state '{state.id}', task", undefined=undefined)
                if state.resolve_dynamic_values_in_prompt
                else state.task
            )
            base = replace(base, rendered_task=task)
            if state.approve or state.interrupt_before:
                async for request in self._approve(state, task):
                    yield request
            raw, usage, child = "", TokenUsage(), ""
            if state.tool_id:
                async for called in self._tool(state, store):
                    if isinstance(called, tuple):
                        raw, args = called
                        base = replace(base, rendered_args=args)
                    else:
                        yield called
            else:
                async for event in self._assistant(state, task, history, store):
                    if isinstance(event, tuple):
                        raw, usage, child = event
                    else:
                        yield event
        except ContextDeskError as failure:
            failed = replace(base, status="failed", error=str(failure), elapsed_seconds=time.monotonic() - started,
                             store_after=dict(store), history_after=history)  # fmt: skip
            failed = self._record(failed)
            yield StepFinished(self.run_id, failed)
            raise
        parsed = parse_output(raw)
        try:
            value = _pointer(parsed.value, state.output_pointer)
            _validate(state, value)
        except WorkflowError as failure:
            failed = replace(base, raw_output=raw, parse_path=parsed.path, status="failed", error=str(failure),
                             store_after=dict(store), history_after=history,
                             elapsed_seconds=round(time.monotonic() - started, 4))  # fmt: skip
            failed = self._record(failed)
            yield StepFinished(self.run_id, failed)
            raise
        next_ = state.next
        transition = Transition(
            store_in_context=next_.store_in_context,
            output_key=next_.output_key,
            clear_context_store=next_.clear_context_store,
            reset_keys_in_context_store=tuple(next_.reset_keys_in_context_store or ()),
        )
        after, change = apply_output(store, value, raw, transition)
        if item is not None:
            after.pop("item", None)
        new_history = () if next_.clear_prior_messages else history
        if next_.include_in_llm_history and not next_.clear_prior_messages:
            new_history = (*new_history, HistoryMessage("assistant", raw, state.id))
        self._limits.tokens += usage.total
        context = None
        if child:
            messages = self.chats.messages(child)
            context = next((m.request_context for m in reversed(messages) if m.request_context), None)
        step = replace(
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
            elapsed_seconds=round(time.monotonic() - started, 4),
        )
        try:
            following = self._next(state, after)
        except WorkflowTemplateError as failure:
            step = replace(step, status="failed", error=str(failure))
            step = self._record(step)
            yield StepFinished(self.run_id, step)
            raise
        step = replace(step, next_state=", ".join(following))
        step = self._record(step)
        yield StepFinished(self.run_id, step)
        self._limits.stop_if_over()
        yield step

    def _record(self, step: StepRecord) -> StepRecord:
        """Keep ``step``, numbered in the order steps end (items run side by side start together)."""
        step, data = self._limits.record(step)
        self.runs.add_step(self.run_id, step, data)
        return step

    async def _approve(self, state: WorkflowState, task: str) -> AsyncIterator[ApprovalRequest]:
        request = ApprovalRequest(
            self.run_id,
            WORKFLOW_GATE,
            state.id,
            {"task": task},
            origin=f"{WORKFLOW_ORIGIN}{self.workflow.name}",
        )
        if self.auto_approve:
            request.decide(ApprovalDecision.ALLOW_ONCE)
        else:
            yield request
        if await request.wait() is ApprovalDecision.DENY:
            raise _Stopped(f"stopped: you did not let state '{state.id}' run")

    async def _assistant(
        self, state: WorkflowState, task: str, history: tuple[HistoryMessage, ...], store: Mapping[str, Any]
    ) -> AsyncIterator[Any]:
        if self.mock is not None:
            yield (self.mock.next_for(state.id), TokenUsage(), "")
            return
        subagent = self._assistant_of(state)
        message = _with_history(task, history)
        parent = self._host()
        config = self._assistant_config(state)
        where = f"state '{state.id}'"
        servers = (
            server_configs(config, self.agent, store, where=where, undefined=self.spec.undefined)
            if config is not None and config.mcp_servers
            else {}
        )
        delegation: Delegation | None = None
        async with AsyncExitStack() as stack:
            granted = None
            if servers:
                own = await stack.enter_async_context(started_servers(servers, where))
                names = frozenset(servers)
                granted = lambda tools: StateTools(tools, own, names)  # noqa: E731 - one use
            async for event in parent.delegator.run_definition(
                subagent, message, f"{self.run_id}-{self._limits.steps}", granted=granted
            ):
                if isinstance(event, Delegation):
                    delegation = event
                else:
                    yield event
        assert delegation is not None
        if delegation.stopped_by:
            why = delegation.note or delegation.stopped_by
            raise WorkflowError(f"state '{state.id}': the assistant stopped ({why})")
        yield (delegation.result, delegation.usage, delegation.child_session_id)

    def _assistant_config(self, state: WorkflowState) -> WorkflowAssistantConfig | None:
        return next((a for a in self.spec.assistants if a.id == (state.assistant_id or "")), None)

    def _assistant_of(self, state: WorkflowState) -> Subagent:
        """The agent that answers ``state``: a sub-agent, an agent folder, or this agent (with the
        workflow's system prompt and model for it, when it gives them)."""
        name = state.assistant_id or ""
        config = self._assistant_config(state)
        schema = state.output_schema
        if isinstance(schema, str):
            schema = json.loads(schema)
        sub_name = (config.assistant_id if config else None) or (
            name if name in self.agent.subagents else None
        )
        limits = SubagentLimits(
            max_turns=10,
            max_tokens=self.spec.limits.max_tokens,
            timeout_seconds=self.spec.limits.timeout_seconds,
        )
        if sub_name:
            found = self.agent.subagents.get(sub_name)
            if found is None:
                raise WorkflowError(f"state '{state.id}': the sub-agent '{sub_name}' is not in this agent")
            return replace(found, output_schema=schema or found.output_schema)
        prompt = (config.system_prompt if config else None) or self.agent.config.system_prompt
        return Subagent(
            name=name or state.id,
            description=f"workflow {self.workflow.name}, state {state.id}",
            prompt=prompt,
            model=(config.model if config and config.model else "inherit"),
            output_schema=schema,
            limits=limits,
        )

    async def _tool(
        self, state: WorkflowState, store: Mapping[str, Any]
    ) -> AsyncIterator[ApprovalRequest | tuple[str, dict[str, Any]]]:
        """Call the state's MCP tool, asking first as the chat would; ends with (output, the
        rendered arguments)."""
        config = next(t for t in self.spec.tools if t.id == state.tool_id)
        server, _, tool = config.tool.partition(".")
        args = {**(config.tool_args or {}), **(state.tool_args or {})}
        rendered = _render_all(args, store, f"state '{state.id}', tool_args", self.spec.undefined)
        descriptor = next(
            (t for t in self.services.tools.tools() if t.server == server and t.name == tool), None
        )
        if descriptor is None:
            raise WorkflowError(f"state '{state.id}': no running server offers {config.tool}")
        ref = ItemRef("tool", tool, server)
        policy = self.agent.config.chat.tool_permission
        asks = policy is ToolPermissionPolicy.ASK or (
            policy is ToolPermissionPolicy.TOOL and descriptor.permission_required
        )
        allowed = self.host.allowed_tools if self.host is not None else ()
        if asks and not self.auto_approve and ref not in allowed:
            request = ApprovalRequest(
                f"{self.run_id}-{state.id}",
                server,
                tool,
                rendered,
                origin=f"{WORKFLOW_ORIGIN}{self.workflow.name}",
                target=call_target(self.agent.config, server, tool),
            )
            yield request
            decision = await request.wait()
            if decision is ApprovalDecision.DENY:
                raise _Stopped(f"stopped: you did not allow {config.tool} in state '{state.id}'")
            if decision is ApprovalDecision.ALLOW_FOR_CHAT and self.host is not None:
                self.host.allow_tool_for_chat(ref)
        outcome = await self.services.tools.call_tool(server, tool, rendered)
        if outcome.is_error:
            raise WorkflowError(f"state '{state.id}': {config.tool} failed: {outcome.text[:500]}")
        text = outcome.text
        if config.tool_result_json_pointer:
            pointed = _pointer(parse_output(text).value, config.tool_result_json_pointer)
            text = pointed if isinstance(pointed, str) else json.dumps(pointed, ensure_ascii=False)
        if config.resolve_dynamic_values_in_response:
            # CodeMie's option: the tool's output is itself a template of the store. It renders in
            # the same sandbox; an undefined variable in it is an error like any other.
            text = render(
                text, store, where=f"state '{state.id}', tool response", undefined=self.spec.undefined
            )
        yield (text, rendered)

    def _host(self) -> ChatSession:
        if self.host is not None:
            return self.host
        now = time.time()
        record = StoredSession(
            id=f"workflow:{self.run_id}",
            title="",
            agent_path=str(self.agent.root),
            created_at=now,
            updated_at=now,
        )
        return ChatSession(self.agent, self.chats, record, self.services)


_DONE = object()  # the end of a run's events


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


def _scoped(store: Mapping[str, Any], item: Any) -> dict[str, Any]:
    """The store one iteration sees: a dict item's keys, and the item itself as ``item``."""
    return {**store, **(item if isinstance(item, dict) else {}), "item": item}


def _new_keys(scoped: Mapping[str, Any], step: StepRecord) -> dict[str, Any]:
    """What one iteration wrote: keys it added or changed (the item's own keys excluded)."""
    return {k: v for k, v in step.store_after.items() if k != "item" and (k not in scoped or scoped[k] != v)}


class _ItemWrites:
    """What the items of one iteration wrote, merged by the state's ``merge`` rule: ``append``
    collects each key's values into a list; ``last`` (the default) keeps the last item's;
    ``error`` refuses two items writing one key, so items never overwrite each other unseen."""

    def __init__(self, target: WorkflowState) -> None:
        self.target = target
        self.collected: dict[str, list[Any]] = {}

    def add(self, store: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
        """``store`` with one more item's writes ``new`` merged in.

        Raises:
            WorkflowError: ``merge: error`` and a key an earlier item wrote.
        """
        if self.target.merge == "error" and (clash := [k for k in new if k in self.collected]):
            raise WorkflowError(
                f"state '{self.target.id}': two items wrote {', '.join(clash)} (merge: error)"
            )
        for k, v in new.items():
            self.collected.setdefault(k, []).append(v)
        if self.target.merge == "append":
            return {**store, **{k: list(v) for k, v in self.collected.items()}}
        return {**store, **new}


def _merge_items(
    target: WorkflowState,
    store: dict[str, Any],
    history: tuple[HistoryMessage, ...],
    results: Sequence[tuple[Any, StepRecord]],
) -> tuple[dict[str, Any], tuple[HistoryMessage, ...]]:
    """What items that ran side by side wrote, in the items' order (not the order they finished),
    each having started from ``store`` and ``history``; each item's history is appended."""
    writes = _ItemWrites(target)
    merged_store = dict(store)
    new_history = history
    for item, step in results:
        merged_store = writes.add(merged_store, _new_keys(_scoped(store, item), step))
        new_history = (*new_history, *step.history_after[len(history) :])
    return merged_store, new_history


def _with_history(task: str, history: tuple[HistoryMessage, ...]) -> str:
    if not history:
        return task
    lines = "\n".join(f"{m.role}{f' ({m.state_id})' if m.state_id else ''}: {m.text}" for m in history)
    return f"<history>\nThe workflow so far, for reference:\n{lines}\n</history>\n\n{task}"


def _render_all(value: Any, store: Mapping[str, Any], where: str, undefined: Any) -> Any:
    if isinstance(value, str):
        return render(value, store, where=where, undefined=undefined)
    if isinstance(value, dict):
        return {k: _render_all(v, store, where, undefined) for k, v in value.items()}
    if isinstance(value, list):
        return [_render_all(v, store, where, undefined) for v in value]
    return value


def _lookup(store: Mapping[str, Any], path: str) -> Any:
    value: Any = store
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            raise WorkflowError(
                f"'{path}' is not in the context store (it holds: {', '.join(sorted(store)) or 'nothing'})"
            )
        value = value[part]
    return value


def _pointer(value: Any, pointer: str | None) -> Any:
    """RFC 6901: ``/items/0/name`` into parsed output (an empty pointer is the whole)."""
    if not pointer:
        return value
    for raw in pointer.lstrip("/").split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            raise WorkflowError(f"the JSON pointer {pointer} finds nothing in the output")
    return value


def dry_run(workflow: Workflow, given: Any) -> list[tuple[str, str, Any]]:
    """Every state's task and tool arguments rendered from the input alone, without running
    anything: what a later state stores shows as ``{{name}}``. (state id, task, arguments).

    Raises:
        WorkflowError: the input does not match the declared inputs.
        WorkflowTemplateError: a template does not parse or is refused.
    """
    store = initial_store(given, workflow.spec.inputs)
    rendered = []
    tools = {t.id: t for t in workflow.spec.tools}
    for state in workflow.spec.states:
        where = f"state '{state.id}'"
        task = render(state.task, store, where=f"{where}, task", undefined="keep")
        args = None
        if state.tool_id and state.tool_id in tools:
            merged = {**(tools[state.tool_id].tool_args or {}), **(state.tool_args or {})}
            args = _render_all(merged, store, f"{where}, tool_args", "keep")
        rendered.append((state.id, task, args))
    return rendered
