"""The bundled offline model, which cannot choose tools itself, is routed to a sub-agent when a
message clearly asks for it, and the child runs with it too (real MiniLM, real local model, real
workspace server)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import (
    ApprovalDecision,
    ApprovalRequest,
    ChatEvent,
    ContextBuilt,
    ReplyFinished,
    SubagentFinished,
    SubagentStarted,
)
from agent_core.context.items import ItemRef
from agent_core.context.selection import ContextSelector
from agent_core.store.chats import ChatStore
from agent_core.workspace import Workspace
from tests.support.models import runnable_offline_model

pytestmark = pytest.mark.slow

RESEARCHER = """---
name: researcher
description: Researches a question in the user's notes and documents and reports what it found
tools: [workspace.read_file, workspace.search_files, workspace.list_files]
limits: {maxTurns: 3, timeoutSeconds: 240}
---
You look things up in the user's notes. Answer in one or two sentences.
"""


def test_the_offline_model_is_routed_to_a_sub_agent_that_runs_with_it(tmp_path: Path) -> None:
    runnable_offline_model()
    documents = tmp_path / "Documents"
    documents.mkdir()
    (documents / "notes.md").write_text("# Notes\nThe dentist appointment is on Tuesday at 10.\n")
    root = tmp_path / "agent"
    create_agent(root)
    config = root / "agent.yaml"
    config.write_text(config.read_text().replace("~/Documents", str(documents)))
    (root / "subagents").mkdir()
    (root / "subagents" / "researcher.md").write_text(RESEARCHER, encoding="utf-8")
    selector = ContextSelector(cache_dir=tmp_path / "embeddings")
    workspace = Workspace(load_agent(root), store=ChatStore(tmp_path / "db.sqlite3"), selector=selector)

    child: list[object] = []
    text = "Ask the researcher sub-agent to research when my dentist appointment is"

    async def scenario() -> list[ChatEvent]:
        try:
            await workspace.start_tools()
            session = workspace.new_chat()
            events: list[ChatEvent] = []
            async for event in session.send(text):
                events.append(event)
                if isinstance(event, ApprovalRequest):
                    event.decide(ApprovalDecision.ALLOW_ONCE)
                if isinstance(event, SubagentStarted):
                    child.append(event.child_session_id)
            child[:] = workspace.store.messages(child[0]) if child else []
            return events
        finally:
            await workspace.aclose()
            selector.indexer.close()

    events = asyncio.run(asyncio.wait_for(scenario(), 600))
    context = next(e for e in events if isinstance(e, ContextBuilt)).context
    assert [i.ref for i in context.of_type("tool")] == [ItemRef("tool", "researcher", "subagents")]
    [started] = [e for e in events if isinstance(e, SubagentStarted) and not e.origin]
    # A model that cannot choose tools writes poor arguments: the task is the user's own message.
    assert started.subagent == "researcher" and started.task == text
    [finished] = [e for e in events if isinstance(e, SubagentFinished) and not e.origin]
    assert finished.delegation.turns >= 1 and finished.delegation.model.startswith("local:")
    final = events[-1]
    assert isinstance(final, ReplyFinished) and final.message.status == "complete"
    assert final.message.request_context is not None
    assert [d.subagent for d in final.message.request_context.delegations] == ["researcher"]
    assert child[0].role == "user" and any(m.role == "assistant" for m in child)  # type: ignore[attr-defined]
