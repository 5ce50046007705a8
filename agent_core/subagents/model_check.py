"""Before a chat's model delegates to a sub-agent whose model cannot do the work reliably, the user
is asked, with the one-line warning as the question's caution: allow runs it anyway, deny leaves
it unrun and the tool's result says to pick another model. A run started by the user directly
(``subagent run``, the Sub-agents tab) is checked by its front end instead."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_core.chat.events import ApprovalRequest
from agent_core.providers.limit_warning import warning_for_ref
from agent_core.subagents.child_context import resolve_model
from agent_core.subagents.tools import SUBAGENT_SERVER

if TYPE_CHECKING:
    from agent_core.chat.session import ChatSession

__all__ = ["NOT_RUN", "limited_model_question"]

NOT_RUN = (
    "The sub-agent was not run: its model may not manage the task and the user chose to pick "
    "another model (the sub-agent file's model:, or the agent's chat model)."
)


async def limited_model_question(
    parent: ChatSession, name: str, call_id: str, task: str, origin: str
) -> ApprovalRequest | None:
    """The question to ask before the sub-agent ``name`` runs, or None when its model can do it
    (or there is no such sub-agent: the delegation says so itself)."""
    subagent = parent.agent.subagents.get(name)
    if subagent is None:
        return None
    model, _note = resolve_model(subagent, parent.agent, parent.settings.chat.model)
    warning = await warning_for_ref(parent.services.resolve_provider, model, "subagent")
    if warning is None:
        return None
    return ApprovalRequest(
        call_id=call_id,
        server=SUBAGENT_SERVER,
        tool=name,
        arguments={"task": task},
        origin=origin,
        caution=warning,
        every_call=True,  # the answer is about this run, not every later one
        model_limited=True,
    )
