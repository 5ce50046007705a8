"""A workflow's tool state asks as the chat asks: the same policy, and the same caution when the
tool's server marks it destructive. Against a real MCP server with annotated tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.agent.schema import ToolDefaults
from agent_core.chat.events import ApprovalDecision, ApprovalRequest
from agent_core.chat.services import ChatServices
from agent_core.mcp import McpManager
from agent_core.providers.base import Provider
from agent_core.workflows.engine import WorkflowEngine
from agent_core.workflows.events import WorkflowFinished
from agent_core.workflows.loader import parse_workflow
from tests.support.mcp_servers import rich
from tests.support.workflow_runner import Runner

pytestmark = pytest.mark.anyio

NOTES = """
tools:
  - id: deleter
    tool: rich.delete_note
  - id: writer
    tool: rich.write_note
states:
  - id: delete
    tool_id: deleter
    tool_args: {name: '{{note}}'}
    next: {state_id: write, output_key: deleted}
  - id: write
    tool_id: writer
    tool_args: {name: '{{note}}'}
    next: {state_id: end, output_key: written}
"""


async def test_a_tool_state_on_a_destructive_tool_shows_the_chats_caution(tmp_path: Path) -> None:
    runner = Runner(tmp_path)
    workflow = parse_workflow(tmp_path / "notes.yaml", NOTES, [])
    assert workflow is not None
    asked: list[ApprovalRequest] = []
    # Every tool asks (the server's default), so both states show what the user is asked.
    async with McpManager({"rich": rich(tool_defaults=ToolDefaults(permission_required=True))}) as manager:

        def resolve(model: str) -> tuple[Provider, str]:
            return runner.provider, "x"

        engine = WorkflowEngine(
            workflow, runner.agent, ChatServices(resolve, None, manager), runner.chats, runner.runs
        )
        record = None
        async for event in engine.run({"note": "todo"}):
            if isinstance(event, ApprovalRequest):
                asked.append(event)
                event.decide(ApprovalDecision.ALLOW_ONCE)
            elif isinstance(event, WorkflowFinished):
                record = event.run
    assert record is not None and record.status == "finished", record
    assert record.store["deleted"] == "deleted todo"
    assert [(r.server, r.tool) for r in asked] == [("rich", "delete_note"), ("rich", "write_note")]
    assert "destructive" in asked[0].caution and "delete or overwrite" in asked[0].caution
    assert asked[1].caution == ""  # no hint, no warning
