"""Running one workflow file in tests: a fresh agent, one scripted model for every assistant,
in-process tools, the real chat and run stores; approvals allowed unless a test decides them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_core.agent.items import Problem
from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.agent.server_trust import ServerTrust
from agent_core.agent.workflow_files.loader import parse_workflow
from agent_core.chat.events import ApprovalDecision, ApprovalRequest
from agent_core.chat.services import ChatServices
from agent_core.providers.base import Provider
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.workflows.context_store import Transition, apply_output
from agent_core.workflows.engine import WorkflowEngine
from agent_core.workflows.events import WorkflowFinished
from agent_core.workflows.mock_outputs import MockOutputs
from agent_core.workflows.parsing import parse_output
from agent_core.workflows.records import StepRecord, WorkflowRunRecord
from agent_core.workflows.run_store import WorkflowRunStore
from agent_core.workflows.server_trust import workflow_servers
from agent_core.workspace import CHAT_COMMANDS, CHAT_TOOL_HANDLERS
from tests.support.chat_tools import PythonTools, Tool

__all__ = ["Runner", "step"]


class Runner:
    def __init__(self, tmp_path: Path) -> None:
        root = create_agent(tmp_path / "agent").root
        for folder in ("rules", "references"):
            for path in (root / folder).glob("*.md"):
                path.unlink()
        self.agent = load_agent(root)
        self.agent.config.chat.model = "scripted:x"
        self.provider = ScriptedProvider()
        self.tools = PythonTools(
            [Tool("workspace", "read_file", "Read a file", permission_required=False)],
            {"read_file": lambda path: json.dumps({"path": path, "lines": 12})},
        )
        self.chats = ChatStore(tmp_path / "chats.sqlite3")
        self.runs = WorkflowRunStore(tmp_path / "chats.sqlite3")
        self.tmp_path = tmp_path
        self.asked: list[ApprovalRequest] = []

    def services(self) -> ChatServices:
        def resolve(model: str) -> tuple[Provider, str]:
            return self.provider, "x"

        return ChatServices(
            resolve, None, self.tools, tool_handlers=CHAT_TOOL_HANDLERS, commands=CHAT_COMMANDS
        )

    def run(
        self,
        text: str,
        given: Any,
        mock: list[dict[str, Any]] | None = None,
        *,
        decide: Callable[[ApprovalRequest], ApprovalDecision] | None = None,
        trusted: bool = True,
    ) -> WorkflowRunRecord:
        """The run's record; approvals are allowed, or answered by ``decide`` when given. The
        workflow's own servers are trusted first (as `contextdesk agent trust` would) unless not ``trusted``."""
        problems: list[Problem] = []
        workflow = parse_workflow(self.tmp_path / "flow.yaml", text, problems)
        assert workflow is not None, problems
        if trusted:
            ServerTrust().trust(self.agent.root, workflow_servers(self.agent, [workflow]))
        engine = WorkflowEngine(
            workflow, self.agent, self.services(), self.chats, self.runs,
            mock_outputs=MockOutputs(mock) if mock is not None else None, auto_approve=decide is None,
        )  # fmt: skip

        async def go() -> WorkflowRunRecord:
            async for event in engine.run(given):
                if isinstance(event, ApprovalRequest):
                    assert decide is not None
                    self.asked.append(event)
                    event.decide(decide(event))
                if isinstance(event, WorkflowFinished):
                    return event.run
            raise AssertionError("no end")

        return asyncio.run(asyncio.wait_for(go(), 30))


def step(run: WorkflowRunRecord, state_id: str) -> StepRecord:
    return next(s for s in run.steps if s.state_id == state_id)


def store_after(before: dict, raw: str, **flags: object) -> dict:
    """The context store after a state whose output was ``raw``, with its ``next`` rules ``flags``."""
    parsed = parse_output(raw)
    after, _ = apply_output(before, parsed.value, raw, Transition(**flags))  # type: ignore[arg-type]
    return after
