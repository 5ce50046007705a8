"""Memories written from chats: an explicit "remember that…" with the bundled offline model, the
extractor's proposals (never from questions or hypotheticals), consent, and secrets."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.cli.main import main
from agent_core.context.selection import ContextSelector
from agent_core.resources import default_agent_dir
from agent_core.store.chats import ChatStore
from tests.support.memory_chats import chat_with, written
from tests.support.models import runnable_offline_model

pytestmark = pytest.mark.slow


def test_remember_that_with_the_offline_model_is_recalled_in_a_later_chat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runnable_offline_model()
    agent = tmp_path / "agent"
    shutil.copytree(default_agent_dir(), agent)

    assert main(["chat", "--yes", "--agent", str(agent), "remember that my cat is called Miso"]) == 0
    assert "[memory saved" in capsys.readouterr().err
    assert main(["memory", "list", "--agent", str(agent), "--json"]) == 0
    [memory] = json.loads(capsys.readouterr().out)
    assert (memory["text"], memory["status"]) == ("My cat is called Miso", "active")
    assert memory["source"]["speaker"] == "user" and memory["source"]["quote"] == "my cat is called Miso"

    assert main(["chat", "--agent", str(agent), "what is my cat called?"]) == 0
    capsys.readouterr()
    store = ChatStore()
    latest = store.sessions()[0]
    context = store.messages(latest.id)[-1].request_context
    store.close()
    assert context is not None and [i.ref.name for i in context.of_type("memory")] == [memory["id"]]


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    shared = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield shared
    shared.indexer.close()


def test_extraction_proposes_stated_facts_only_and_waits_for_consent(
    tmp_path: Path, selector: ContextSelector
) -> None:
    session, provider, memories = chat_with(tmp_path, selector, "memory:\n  extraction: rules\n")
    [event] = written(session, provider, "btw we deploy on fly.io now. Can you fix the config?")
    [outcome] = event.outcomes
    assert outcome.memory is not None and outcome.memory.status == "proposed"
    assert outcome.memory.provenance.quote == "we deploy on fly.io now"
    assert written(session, provider, "if I were on AWS, what would change?") == []
    assert written(session, provider, "is my cat called Miso?") == []
    book = memories.book_for(session.agent)
    assert [m.status for m in book.find()] == ["proposed"]
    asyncio.run(session.decide_memory(outcome.memory.id, accept=True))
    assert [m.status for m in book.find()] == ["active"]


def test_extraction_is_off_by_default_but_remember_that_still_proposes(
    tmp_path: Path, selector: ContextSelector
) -> None:
    session, provider, _ = chat_with(tmp_path, selector, "")
    assert written(session, provider, "we deploy on fly.io now") == []
    [event] = written(session, provider, "remember that our standup is at 9:30")
    assert [o.memory.text for o in event.outcomes if o.memory] == ["Our standup is at 9:30"]


def test_secrets_are_never_saved_automatically_and_the_user_is_told(
    tmp_path: Path, selector: ContextSelector
) -> None:
    session, provider, memories = chat_with(tmp_path, selector, "memory:\n  autoAccept: true\n")
    [event] = written(session, provider, "remember that my api key is sk-proj-abcdefghijklmnopqrstuvwx")
    assert event.outcomes == () and "never saved automatically" in event.notes[0]
    assert memories.book_for(session.agent).find(statuses=None) == []


def test_slash_remember_saves_the_users_words_at_once(tmp_path: Path, selector: ContextSelector) -> None:
    session, _, _ = chat_with(tmp_path, selector, "")
    outcome = asyncio.run(session.remember("I review pull requests on Tuesdays"))
    assert outcome.action == "added" and outcome.memory is not None and outcome.memory.status == "active"
    assert outcome.memory.provenance.session_id == session.id
