"""The bundled offline model runs a two-state workflow end to end from a chat (``/run``): a real
workspace server reads a note, the local model answers the assistant state, and every step is
kept with its own RequestContext."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ApprovalDecision, ApprovalRequest, ChatEvent, ReplyFinished
from agent_core.store.chats import ChatStore
from agent_core.workflows.run_store import WorkflowRunStore
from agent_core.workspace import Workspace
from tests.support.models import runnable_offline_model

pytestmark = pytest.mark.slow

REMINDER = """
description: Turn a note into a one-line reminder
inputs:
  file: {type: string}
tools:
  - id: reader
    tool: workspace.read_file
states:
  - id: read
    tool_id: reader
    tool_args: {path: '{{file}}'}
    next: {state_id: remind, output_key: note, include_in_llm_history: false}
  - id: remind
    task: 'Write a one-sentence reminder for this note: {{note}}'
    next: {state_id: end, output_key: reminder}
"""


def test_the_offline_model_runs_a_two_state_workflow_from_a_chat(tmp_path: Path) -> None:
    runnable_offline_model()
    documents = tmp_path / "Documents"
    documents.mkdir()
    note = "The dentist appointment is on Tuesday at 10."
    (documents / "dentist.md").write_text(note + "\n")
    root = tmp_path / "agent"
    create_agent(root)
    config = root / "agent.yaml"
    config.write_text(config.read_text().replace("~/Documents", str(documents)))
    (root / "workflows").mkdir()
    (root / "workflows" / "reminder.yaml").write_text(REMINDER, encoding="utf-8")
    agent = load_agent(root)
    assert not [p for p in agent.problems if p.severity == "error"], agent.problems
    store = ChatStore(tmp_path / "db.sqlite3")
    workspace = Workspace(agent, store=store)

    child_statuses: list[str] = []

    async def scenario() -> list[ChatEvent]:
        try:
            await workspace.start_tools()
            session = workspace.new_chat()
            events: list[ChatEvent] = []
            async for event in session.send('/run reminder {"file": "dentist.md"}'):
                events.append(event)
                if isinstance(event, ApprovalRequest):
                    event.decide(ApprovalDecision.ALLOW_ONCE)
            child_statuses.extend(m.status for c in store.children(session.id) for m in store.messages(c.id))
            return events
        finally:
            await workspace.aclose()

    runs = WorkflowRunStore(tmp_path / "db.sqlite3")
    events = asyncio.run(asyncio.wait_for(scenario(), 600))
    final = events[-1]
    assert isinstance(final, ReplyFinished) and final.message.status == "complete", final.message.content
    context = final.message.request_context
    assert context is not None
    [link] = context.workflow_runs
    assert link.status == "finished", link.error
    record = runs.run(link.run_id)
    runs.close()
    assert record is not None
    read, remind = record.steps
    assert read.kind == "tool" and note in record.store["note"]
    # The second state's prompt holds exactly what the first stored.
    assert remind.rendered_task == f"Write a one-sentence reminder for this note: {record.store['note']}"
    assert remind.kind == "assistant" and remind.request_context is not None
    assert remind.request_context.model.startswith("local:")
    assert isinstance(record.store["reminder"], str) and record.store["reminder"].strip()
    assert remind.child_session_id and child_statuses[-1] == "complete"
