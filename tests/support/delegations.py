"""A parent chat that delegates to one of its agent's sub-agents, for tests that check imported
sub-agent files really run: every model call goes to one scripted provider."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from agent_core.agent.agent import Agent
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.chat.tool_handlers import MessageTurn
from agent_core.context.items import Delegation
from agent_core.context.selection import ContextSelector
from agent_core.providers.base import Provider
from agent_core.store.chats import ChatStore, StoredSession
from agent_core.subagents.runner import Delegator
from agent_core.subagents.tools import WithSubagents
from tests.support.chat_tools import PythonTools

__all__ = ["delegation_runner", "delegation_runner_with"]


def delegation_runner(
    agent: Agent, store: ChatStore, provider: Provider, tools: PythonTools, task: str
) -> Callable[[str], Awaitable[Delegation]]:
    """``run(name)``: the Delegation of handing ``task`` to the sub-agent ``name`` from a parent
    chat of ``agent`` (in the agent's folder), with ``tools`` as the parent's tools."""
    return delegation_runner_with(agent, store, provider, tools, task, None)


def delegation_runner_with(
    agent: Agent,
    store: ChatStore,
    provider: Provider,
    tools: PythonTools,
    task: str,
    selector: ContextSelector | None,
) -> Callable[[str], Awaitable[Delegation]]:
    """:func:`delegation_runner` with ``selector`` choosing (and routing) the chats' tools."""

    def resolve(model: str) -> tuple[Provider, str]:
        return provider, "x"

    now = time.time()
    parent = ChatSession(
        agent,
        store,
        StoredSession("", "", str(agent.root), now, now),
        ChatServices(resolve, selector, WithSubagents(tools, lambda: agent)),
    )

    async def run(name: str) -> Delegation:
        result = None
        async for event in Delegator(parent).delegate(
            f"call-{name}", name, {"task": task}, None, MessageTurn("")
        ):
            if isinstance(event, Delegation):
                result = event
        assert result is not None
        return result

    return run
