"""Running a sub-agent directly on a task, with no parent chat (``contextdesk subagent run``, the
desktop's Test run). Its chat is stored like any sub-agent's, under no parent."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

from agent_core.agent.agent import Agent
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.chat.tool_handlers import MessageTurn
from agent_core.context.items import Delegation
from agent_core.store.chats import ChatStore, StoredSession
from agent_core.subagents.runner import DelegationEvent, Delegator

__all__ = ["DIRECT_CALL", "run_directly"]

DIRECT_CALL = "direct"


async def run_directly(
    agent: Agent, store: ChatStore, services: ChatServices, name: str, task: str
) -> AsyncIterator[DelegationEvent | Delegation]:
    """The sub-agent's events (approvals to answer among them), then its Delegation.

    Raises:
        LookupError: the agent has no sub-agent ``name``.
    """
    now = time.time()
    # A stand-in parent, never saved: it holds the agent and its settings.
    host = StoredSession(id="", title="", agent_path=str(agent.root), created_at=now, updated_at=now)
    delegator = Delegator(ChatSession(agent, store, host, services))
    async for event in delegator.delegate(DIRECT_CALL, name, {"task": task}, None, MessageTurn(task)):
        yield event
