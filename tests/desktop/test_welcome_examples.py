"""The welcome's try-it examples, each run on the shipped default agent and the bundled model (no
scripted provider): each shows what its note promises, and where the bundled model's answer
cannot be trusted the note says which model it needs."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ApprovalDecision, ApprovalRequest
from agent_core.store.chats import ChatStore, StoredMessage
from desktop.views.welcome import EXAMPLES
from tests.support.models import runnable_offline_model

pytestmark = [pytest.mark.slow]


def run_examples(tmp_path: Path) -> list[StoredMessage]:
    from agent_core.workspace import Workspace

    runnable_offline_model()
    documents = tmp_path / "Documents"
    documents.mkdir()
    (documents / "notes.md").write_text("# Notes\nThe launch is on Friday.\n", encoding="utf-8")
    root = create_agent(tmp_path / "agent").root
    config = root / "agent.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("~/Documents", str(documents)), encoding="utf-8"
    )
    store = ChatStore(tmp_path / "db.sqlite3")
    workspace = Workspace(load_agent(root), store=store)

    async def scenario() -> list[StoredMessage]:
        replies: list[StoredMessage] = []
        try:
            await workspace.start_tools()
            for _, message in EXAMPLES:
                session = workspace.new_chat()  # each button starts from a new chat
                async for event in session.send(message):
                    if isinstance(event, ApprovalRequest):
                        event.decide(ApprovalDecision.ALLOW_ONCE)
                history = store.messages(session.id, with_contexts=True, current_only=True)
                replies.append([m for m in history if m.role == "assistant"][-1])
            return replies
        finally:
            await workspace.aclose()

    return asyncio.run(asyncio.wait_for(scenario(), 900))


def test_each_welcome_example_does_on_the_bundled_model_what_its_note_says(tmp_path: Path) -> None:
    rule, reference, tool = run_examples(tmp_path)
    notes = [what for what, _ in EXAMPLES]

    # A rule chosen for the message: the code rule is selected, the model writes the function.
    assert rule.request_context is not None
    chosen = [(i.ref.name, i.include_mode) for i in rule.request_context.of_type("rule")]
    assert ("code-answers", "agent") in chosen
    assert "def " in rule.content and "palindrome" in rule.content.lower()
    assert not rule.tool_calls and "none was called" in rule.request_context.notes.tool_routing

    # A reference it looks up: selected and shown in View Context; the bundled model's answer is
    # not to be trusted, so the note names the model it needs.
    assert reference.request_context is not None
    assert [i.ref.name for i in reference.request_context.of_type("reference")] == ["using-contextdesk"]
    assert "none was called" in reference.request_context.notes.tool_routing
    assert "larger model" in notes[1] and "bundled model" in notes[1]

    # A tool it calls: list_files, approved, its result shown as it is (nothing made up).
    assert tool.request_context is not None
    assert "picked workspace.list_files" in tool.request_context.notes.tool_routing
    assert tool.content.startswith("`workspace.list_files` returned:") and "notes.md" in tool.content
