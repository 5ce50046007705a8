"""A chat whose agent has the workflow ``triage`` (an assistant state, then a tool state), for
the tests of workflows started from a chat: a real chat, the real store, a scripted provider per
model and Python tools."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ApprovalDecision, ApprovalRequest, ChatEvent
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.store.chats import ChatStore
from agent_core.subagents.tools import WithSubagents
from agent_core.workflows.run_store import WorkflowRunStore
from agent_core.workflows.tools import WithWorkflows
from agent_core.workspace import CHAT_COMMANDS, CHAT_TOOL_HANDLERS
from tests.support.chat_tools import PythonTools, Tool
from tests.support.scripted_models import WAIT, Providers

__all__ = ["TRIAGE", "Chat"]


TRIAGE = """
description: Triage a bug report into a severity and an owner
include: always
inputs:
  report: {type: string, description: the bug report}
assistants:
  - id: classifier
    model: scripted:classifier
    system_prompt: You classify bug reports. Reply in JSON.
tools:
  - id: owners
    tool: workspace.owner_of
states:
  - id: classify
    assistant_id: classifier
    task: 'Classify: {{report}}. Return JSON: {"area": "...", "severity": "..."}'
    next: {state_id: owner}
  - id: owner
    tool_id: owners
    tool_args: {area: '{{area}}'}
    next: {state_id: end, output_key: owner}
"""


class Chat:
    def __init__(self, tmp_path: Path) -> None:
        root = create_agent(tmp_path / "agent").root
        for folder in ("rules", "references"):
            for path in (root / folder).glob("*.md"):
                path.unlink()
        (root / "workflows").mkdir()
        (root / "workflows" / "triage.yaml").write_text(TRIAGE, encoding="utf-8")
        self.agent = load_agent(root)
        assert not [p for p in self.agent.problems if p.severity == "error"], self.agent.problems
        self.agent.config.chat.model = "scripted:parent"
        self.providers = Providers()
        self.tools = PythonTools(
            [Tool("workspace", "owner_of", "Who owns an area", permission_required=True)],
            {"owner_of": lambda area: f"team-{area}"},
        )
        self.store = ChatStore(tmp_path / "chats.sqlite3")
        runtime = WithWorkflows(WithSubagents(self.tools, lambda: self.agent), lambda: self.agent.workflows)
        self.services = ChatServices(
            self.providers.resolve, None, runtime, tool_handlers=CHAT_TOOL_HANDLERS, commands=CHAT_COMMANDS
        )
        self.session = ChatSession.create(self.agent, self.store, self.services)
        self.asked: list[ApprovalRequest] = []

    def send(self, text: str, approve: ApprovalDecision = ApprovalDecision.ALLOW_ONCE) -> list[ChatEvent]:
        async def run() -> list[ChatEvent]:
            events: list[ChatEvent] = []
            async for event in self.session.send(text):
                events.append(event)
                if isinstance(event, ApprovalRequest):
                    self.asked.append(event)
                    event.decide(approve)
            return events

        return asyncio.run(asyncio.wait_for(run(), WAIT))

    def runs(self) -> WorkflowRunStore:
        return WorkflowRunStore(self.store.path)
