"""An assistant state: its task answered by a model in a chat of its own, run exactly as a
sub-agent's is (so it has a RequestContext and View Context works on the step), with the
workflow's history before the task; or, with mock outputs, by the next one of those."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, replace
from typing import Any

from agent_core.agent.subagent_files.definition import Subagent, SubagentLimits
from agent_core.agent.workflow_files.schema import WorkflowAssistantConfig, WorkflowState
from agent_core.chat.session import ChatSession
from agent_core.context.items import Delegation, TokenUsage
from agent_core.context.provenance import Provenance
from agent_core.store.chats import StoredSession
from agent_core.subagents.runner import DelegationEvent, Delegator
from agent_core.subagents.tools import SUBAGENT_SERVER
from agent_core.workflows.errors import WorkflowError
from agent_core.workflows.output_review import HISTORY_FRAME, HISTORY_TAGS
from agent_core.workflows.records import HistoryMessage
from agent_core.workflows.servers import StateTools, server_configs, started_servers
from agent_core.workflows.workflow_run import WorkflowRun

__all__ = ["AssistantAnswer", "answer", "assistant_definition", "assistant_tools", "host_chat"]


@dataclass(frozen=True)
class AssistantAnswer:
    text: str
    usage: TokenUsage
    child_session_id: str  # the chat it ran in ("" for a mock output)
    provenance: Provenance | None = None  # what produced ``text``


async def answer(
    run: WorkflowRun,
    state: WorkflowState,
    task: str,
    history: tuple[HistoryMessage, ...],
    store: Mapping[str, Any],
) -> AsyncIterator[DelegationEvent | AssistantAnswer]:
    """The events of the assistant's chat, ending with its answer.

    Raises:
        WorkflowError: the assistant stopped (a cap, an error), its sub-agent is missing, or the
            mock outputs do not fit.
    """
    if run.mock is not None:
        yield AssistantAnswer(run.mock.next_for(state.id), TokenUsage(), "", Provenance("mock"))
        return
    subagent = _assistant_of(run, state)
    message = _with_history(task, history)
    parent = host_chat(run)
    config = _assistant_config(run, state)
    where = f"state '{state.id}'"
    servers = (
        server_configs(config, run.agent, store, where=where, undefined=run.spec.undefined)
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
        async for event in _delegator(parent).run_definition(
            subagent, message, f"{run.run_id}-{run.limits.steps}", granted=granted
        ):
            if isinstance(event, Delegation):
                delegation = event
            else:
                yield event
    assert delegation is not None
    if delegation.stopped_by:
        why = delegation.note or delegation.stopped_by
        raise WorkflowError(f"state '{state.id}': the assistant stopped ({why})")
    yield AssistantAnswer(
        delegation.result, delegation.usage, delegation.child_session_id, delegation.provenance
    )


def _assistant_config(run: WorkflowRun, state: WorkflowState) -> WorkflowAssistantConfig | None:
    return next((a for a in run.spec.assistants if a.id == (state.assistant_id or "")), None)


def _assistant_of(run: WorkflowRun, state: WorkflowState) -> Subagent:
    """The agent that answers ``state`` (see :func:`assistant_definition`)."""
    schema = state.output_schema
    if isinstance(schema, str):
        schema = json.loads(schema)
    return assistant_definition(
        run, state.assistant_id or "", where=f"state '{state.id}'", output_schema=schema, fallback=state.id
    )


def assistant_definition(
    run: WorkflowRun,
    name: str,
    *,
    where: str,
    output_schema: dict[str, Any] | None = None,
    fallback: str = "",
) -> Subagent:
    """The agent that answers as the workflow's assistant ``name``: a sub-agent, an agent folder,
    or this agent (with the workflow's system prompt and model for it, when it gives them).

    Raises:
        WorkflowError: the entry names a sub-agent this agent does not have.
    """
    config = next((a for a in run.spec.assistants if a.id == name), None)
    sub_name = (config.assistant_id if config else None) or (name if name in run.agent.subagents else None)
    limits = SubagentLimits(
        max_turns=10,
        max_tokens=run.spec.limits.max_tokens,
        timeout_seconds=run.spec.limits.timeout_seconds,
    )
    if sub_name:
        found = run.agent.subagents.get(sub_name)
        if found is None:
            raise WorkflowError(f"{where}: the sub-agent '{sub_name}' is not in this agent")
        return replace(found, output_schema=output_schema or found.output_schema)
    prompt = (config.system_prompt if config else None) or run.agent.config.system_prompt
    return Subagent(
        name=name or fallback,
        description=f"workflow {run.workflow.name}, {where}",
        prompt=prompt,
        model=(config.model if config and config.model else "inherit"),
        output_schema=output_schema,
        limits=limits,
        tools=assistant_tools(config),
    )


def assistant_tools(config: WorkflowAssistantConfig | None) -> tuple[str, ...]:
    """The agent's tools an assistant of this agent may use: the ``server.tool`` patterns its
    ``tools:`` entries name (``{name: workspace.read_file}``), none when it lists none (a writer
    state is never answered by a tool it was not given); its own ``mcp_servers`` come on top."""
    if config is None:
        return ()
    names = (entry.get("name") or entry.get("tool") for entry in config.tools)
    return tuple(name for name in names if isinstance(name, str) and name.strip())


def _with_history(task: str, history: tuple[HistoryMessage, ...]) -> str:
    if not history:
        return task
    lines = "\n".join(f"{m.role}{f' ({m.state_id})' if m.state_id else ''}: {m.text}" for m in history)
    opening, closing = HISTORY_TAGS
    return f"{opening}\n{HISTORY_FRAME}\n{lines}\n{closing}\n\n{task}"


def host_chat(run: WorkflowRun) -> ChatSession:
    """The chat the assistant runs under as a sub-agent: the one that started the run, else one
    made for the run, whose own record is never saved (it lends the sub-agent machinery the
    agent, services and chat store)."""
    if run.host is not None:
        return run.host
    now = time.time()
    record = StoredSession(
        id=f"workflow:{run.run_id}",
        title="",
        agent_path=str(run.agent.root),
        created_at=now,
        updated_at=now,
    )
    return ChatSession(run.agent, run.chats, record, run.services)


def _delegator(host: ChatSession) -> Delegator:
    """The host chat's own sub-agent runner (so that its Stop reaches the assistant), else one
    made for this step."""
    handler = host.tool_handlers.get(SUBAGENT_SERVER)
    return handler if isinstance(handler, Delegator) else Delegator(host)
