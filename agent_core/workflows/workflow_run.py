"""One run of a workflow as its parts see it: the graph walk (``engine``) and each step
(``step``, ``assistant_state``, ``tool_state``) share what it runs, where it records, the caps
counted so far, and who answers its approvals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_core.agent.agent import Agent
from agent_core.chat.events import WORKFLOW_ORIGIN
from agent_core.chat.services import ChatServices
from agent_core.store.chats import ChatStore
from agent_core.workflows.limits import RunLimits
from agent_core.workflows.loader import Workflow
from agent_core.workflows.mock_outputs import MockOutputs
from agent_core.workflows.run_store import WorkflowRunStore
from agent_core.workflows.schema import WorkflowFile

if TYPE_CHECKING:
    from agent_core.chat.session import ChatSession

__all__ = ["WorkflowRun"]


@dataclass(frozen=True)
class WorkflowRun:
    """One run: fixed when it starts, except the caps it counts."""

    workflow: Workflow
    agent: Agent
    services: ChatServices
    chats: ChatStore  # the chats its assistant states run in
    runs: WorkflowRunStore  # where its steps are recorded
    run_id: str
    limits: RunLimits  # counted as it goes: its steps are in the database, not kept here
    mock: MockOutputs | None = None
    auto_approve: bool = False
    # The chat that started the run (``/run`` or the workflow's tool): its assistant states then
    # run as that chat's sub-agents, and its "allow for this chat" approvals apply.
    host: ChatSession | None = None

    @property
    def spec(self) -> WorkflowFile:
        return self.workflow.spec

    @property
    def origin(self) -> str:
        """Who asks, in its approval requests ("workflow NAME")."""
        return f"{WORKFLOW_ORIGIN}{self.workflow.name}"
