"""Before a workflow runs on a model that may not give each step the output the next one needs:
the warning for the models its assistant states use, and, in a chat (``/run``, or its model
calling the workflow's tool), the question with that warning as its caution: allow runs it anyway, deny leaves it unrun
and the tool's result says to pick another model. A run the user starts directly (``workflow
run``, the Workflows tab) asks through its front end."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from agent_core.agent.agent import Agent
from agent_core.agent.workflow_files.loader import Workflow
from agent_core.chat.events import WORKFLOW_ORIGIN, ApprovalRequest
from agent_core.providers.base import Provider
from agent_core.providers.limit_warning import warning_for_ref
from agent_core.workflows.tools import WORKFLOW_SERVER

if TYPE_CHECKING:
    from agent_core.chat.session import ChatSession

__all__ = ["NOT_RUN", "asks_a_model", "limited_model_question", "workflow_models", "workflow_warning"]

NOT_RUN = (
    "The workflow was not run: its model may not give each step the output the next one needs and the user chose to pick "
    "another model (the chat's model, or an assistant's model: in the workflow file)."
)


def asks_a_model(workflow: Workflow) -> bool:
    """Whether a run asks a model anything: an Autonomous workflow's supervisor does, and so
    does every state that is not a tool state. A workflow of tool states only runs no model."""
    spec = workflow.spec
    return spec.autonomous or any(not state.tool_id for state in spec.states)


def workflow_models(workflow: Workflow, agent: Agent, chat_model: str) -> list[str]:
    """The ``provider:model`` references the workflow's states may run on: the chat's (states
    without an assistant of their own, and assistants that inherit it), then each assistant's own;
    none when it asks no model (tool states only), and only assistants a model state uses."""
    spec = workflow.spec
    if not asks_a_model(workflow):
        return []
    used = {state.assistant_id for state in spec.states if not state.tool_id}
    found = [chat_model]
    for assistant in spec.assistants:
        if not spec.autonomous and assistant.id not in used:
            continue
        subagent = agent.subagents.get(assistant.assistant_id or "")
        wanted = (assistant.model or (subagent.model if subagent is not None else "")).strip()
        if wanted in agent.config.model_aliases:
            wanted = agent.config.model_aliases[wanted]
        if ":" in wanted and wanted not in found:
            found.append(wanted)
    return found


async def workflow_warning(
    resolve: Callable[[str], tuple[Provider, str]], workflow: Workflow, agent: Agent, chat_model: str
) -> str | None:
    """The warning for the first of the workflow's models that may not follow its steps, or None."""
    for model in workflow_models(workflow, agent, chat_model):
        warning = await warning_for_ref(resolve, model, "workflow")
        if warning is not None:
            return warning
    return None


async def limited_model_question(
    session: ChatSession, call_id: str, workflow: Workflow, arguments: Mapping[str, Any]
) -> ApprovalRequest | None:
    """The question to ask in ``session`` before ``workflow`` runs, or None when its models can do it."""
    warning = await workflow_warning(
        session.services.resolve_provider, workflow, session.agent, session.settings.chat.model
    )
    if warning is None:
        return None
    return ApprovalRequest(
        call_id=call_id,
        server=WORKFLOW_SERVER,
        tool=workflow.name,
        arguments=dict(arguments),
        origin=f"{WORKFLOW_ORIGIN}{workflow.name}",
        caution=warning,
        every_call=True,  # the answer is about this run, not every later one
        model_limited=True,
    )
