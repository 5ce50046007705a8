"""Chats saved before chat state was typed open and export exactly as they did then."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.agent import IncludeMode, load_agent
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.items import ItemRef
from agent_core.providers.base import Provider
from agent_core.store.chats import ChatStore
from agent_core.store.export import export_json, export_markdown
from tests.support.chat_tools import PythonTools, Tool

FIXTURE = Path(__file__).parents[2] / "fixtures" / "chats_v1"


@pytest.fixture
def old_store(tmp_path: Path) -> Iterator[ChatStore]:
    copy = tmp_path / "chats.sqlite3"
    shutil.copyfile(FIXTURE / "chats.sqlite3", copy)
    store = ChatStore(copy)
    yield store
    store.close()


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch) -> None:
    # The Markdown export prints local times; the fixture was written in UTC.
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


# The tools the fixture's chats were made with (one always, one manual).
FIXTURE_TOOLS = [
    Tool("calc", "double", "Double a number", IncludeMode.ALWAYS),
    Tool("calc", "negate", "Negate a number", IncludeMode.MANUAL),
]


def open_chat(store: ChatStore, session_id: str) -> ChatSession:
    agent = load_agent(FIXTURE / "agent")
    services = ChatServices(resolve_provider=_no_provider, tools=PythonTools(FIXTURE_TOOLS))
    return ChatSession.open(agent, store, session_id, services)


def _no_provider(model: str) -> tuple[Provider, str]:
    raise AssertionError("opening or exporting a chat must not resolve a model")


def test_every_chat_exports_exactly_as_before(old_store: ChatStore, utc: None) -> None:
    sessions = old_store.sessions()
    assert len(sessions) == 2
    for session in sessions:
        messages = old_store.messages(session.id)
        assert export_markdown(session, messages) == (FIXTURE / f"{session.id}.md").read_text()
        assert json.loads(export_json(session, messages)) == json.loads(
            (FIXTURE / f"{session.id}.json").read_text()
        )


def test_every_chat_opens_with_its_items_settings_and_history(old_store: ChatStore) -> None:
    expected = json.loads((FIXTURE / "expected_open.json").read_text())
    for session_id, was in expected.items():
        chat = open_chat(old_store, session_id)
        assert chat.title == was["title"]
        assert [[i.ref.key, i.include_mode, i.pinned] for i in chat.items] == was["items"]
        # Settings added since keep their defaults; every setting the chat had is as it was.
        for now, before in (
            (chat.chat_settings, was["chat"]),
            (chat.selection_settings, was["selection"]),
            (chat.context_settings, was["context"]),
        ):
            dumped = now.model_dump(mode="json")
            assert {key: dumped[key] for key in before} == before
            assert now == type(now).model_validate({**type(now)().model_dump(), **before})
        assert {k.key: v.text for k, v in chat.attached_resources().items()} == was["attached"]
        assert [[m.role, m.content, m.status] for m in chat.history()] == was["history"]


def test_the_old_loosely_keyed_state_becomes_typed(old_store: ChatStore) -> None:
    [with_state] = [s for s in old_store.sessions() if s.attached_resources]
    assert with_state.overrides.chat == {"temperature": 0.2, "model": "scripted:fixture"}
    assert with_state.overrides.context == {"window": 8192, "keep_recent_turns": 1}
    assert with_state.allowed_tools == (ItemRef("tool", "double", "calc"),)
    [resource] = with_state.attached_resources
    assert (resource.server, resource.uri, resource.title) == ("docs", "file:///prices.csv", "Prices CSV")
    notes = [
        m.request_context.notes
        for s in old_store.sessions()
        for m in old_store.messages(s.id)
        if m.request_context is not None
    ]
    assert any("cannot call tools" in n.tools for n in notes)
    assert any("picked calc.double" in n.tool_routing for n in notes)
    assert any(n.budget == "this agent has no provider 'x'" for n in notes)


def test_a_chat_allowed_a_tool_before_is_still_not_asked_again(old_store: ChatStore) -> None:
    [with_state] = [s for s in old_store.sessions() if s.allowed_tools]
    chat = open_chat(old_store, with_state.id)
    chat.allow_tool_for_chat(ItemRef("tool", "negate", "calc"))
    reopened = old_store.session(with_state.id)
    assert reopened is not None
    assert reopened.allowed_tools == (ItemRef("tool", "double", "calc"), ItemRef("tool", "negate", "calc"))


def test_the_migration_is_one_transaction(tmp_path: Path) -> None:
    copy = tmp_path / "chats.sqlite3"
    shutil.copyfile(FIXTURE / "chats.sqlite3", copy)
    db = sqlite3.connect(copy)
    # A damaged settings value must not stop the migration or lose the chat.
    db.execute("UPDATE sessions SET chat_settings = 'not json' WHERE title = 'Notes and failures'")
    db.commit()
    db.close()
    store = ChatStore(copy)
    try:
        titles = sorted(s.title for s in store.sessions())
        assert titles == ["Double 21 please", "Notes and failures"]
        damaged = next(s for s in store.sessions() if s.title == "Notes and failures")
        assert damaged.allowed_tools == () and damaged.overrides.chat == {}
    finally:
        store.close()
    assert os.path.exists(copy)
