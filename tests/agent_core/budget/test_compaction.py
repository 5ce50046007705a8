"""Compaction: older turns become a stored, editable note; recent turns and pinned items stay."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ChatEvent, Compacted, ReplyFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.items import ItemRef
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    root = tmp_path / "agent"
    create_agent(root)
    return load_agent(root)


def session_for(agent: Agent, store: ChatStore, provider: ScriptedProvider) -> ChatSession:
    session = ChatSession.create(agent, store, ChatServices(resolve_provider=lambda m: (provider, "x")))
    session.override_settings(context={"keep_recent_turns": 2, "auto_compact": False})
    return session


async def say(session: ChatSession, text: str) -> list[ChatEvent]:
    return [event async for event in session.send(text)]


def chat_turns(session: ChatSession, provider: ScriptedProvider, count: int) -> None:
    for n in range(count):
        provider.enqueue_reply(f"reply {n}")
        asyncio.run(say(session, f"message {n}: my project is called Heron"))


def test_compact_summarizes_older_turns_and_keeps_recent_ones_verbatim(agent: Agent, tmp_path: Path) -> None:
    provider = ScriptedProvider()
    store = ChatStore(tmp_path / "db.sqlite3")
    session = session_for(agent, store, provider)
    session.pin_item(ItemRef("reference", "markdown-cheatsheet"))
    chat_turns(session, provider, 6)
    provider.enqueue_reply("Intent: build Heron. Facts: project name Heron.")
    summary = asyncio.run(session.compact())
    assert summary is not None and summary.role == "summary"
    compaction_request = provider.requests[-1]
    assert "compacting a long conversation" in compaction_request.messages[0].content
    transcript = compaction_request.messages[1].content
    assert "message 0" in transcript and "message 3" in transcript and "message 4" not in transcript

    provider.enqueue_reply("Sure.")
    events = asyncio.run(say(session, "what was my project called?"))
    request = provider.requests[-1]
    system = request.messages[0].content
    assert "<conversation-so-far>\nIntent: build Heron." in system
    assert "Markdown cheat sheet" in system  # the pinned item is still there, in full
    sent = [m.content for m in request.messages[1:]]
    assert sent[:4] == [
        "message 4: my project is called Heron",
        "reply 4",
        "message 5: my project is called Heron",
        "reply 5",
    ]
    assert not any("message 3" in text for text in sent)
    final = events[-1]
    assert isinstance(final, ReplyFinished) and final.message.request_context is not None
    manifest = final.message.request_context.manifest
    assert manifest is not None and "summary" in [part.kind for part in manifest.parts]


def test_the_summary_survives_a_restart_and_can_be_edited(agent: Agent, tmp_path: Path) -> None:
    provider = ScriptedProvider()
    store = ChatStore(tmp_path / "db.sqlite3")
    session = session_for(agent, store, provider)
    chat_turns(session, provider, 4)
    provider.enqueue_reply("Original note: the project is Heron.")
    summary = asyncio.run(session.compact())
    assert summary is not None
    store.close()

    reopened = ChatSession.open(
        agent,
        ChatStore(tmp_path / "db.sqlite3"),
        session.id,
        ChatServices(resolve_provider=lambda m: (provider, "x")),
    )
    [stored] = [m for m in reopened.history() if m.role == "summary"]
    assert (
        stored.content == "Original note: the project is Heron."
        and stored.covers_until == summary.covers_until
    )
    reopened.edit_summary(stored, "Edited note: the user prefers short answers.")
    provider.enqueue_reply("ok")
    asyncio.run(say(reopened, "hello again"))
    assert "Edited note: the user prefers short answers." in provider.requests[-1].messages[0].content


def test_a_chat_past_the_threshold_is_compacted_automatically(agent: Agent, tmp_path: Path) -> None:
    provider = ScriptedProvider()
    session = session_for(agent, ChatStore(tmp_path / "db.sqlite3"), provider)
    chat_turns(session, provider, 5)
    session.override_settings(context={"auto_compact": True, "compact_at": 0.01, "window": 8192})
    provider.enqueue_reply("Auto note: the project is Heron.")
    provider.enqueue_reply("Answer.")
    events = asyncio.run(say(session, "next"))
    compacted = [e for e in events if isinstance(e, Compacted)]
    assert (
        len(compacted) == 1
        and compacted[0].automatic
        and compacted[0].message.content == "Auto note: the project is Heron."
    )
    assert "Auto note: the project is Heron." in provider.requests[-1].messages[0].content
    provider.assert_all_used()


def test_too_short_a_chat_is_not_compacted(agent: Agent, tmp_path: Path) -> None:
    provider = ScriptedProvider()
    session = session_for(agent, ChatStore(tmp_path / "db.sqlite3"), provider)
    chat_turns(session, provider, 2)
    assert asyncio.run(session.compact()) is None
    provider.assert_all_used()
