"""Retry, Regenerate and Edit-and-resend: the new reply has its own RequestContext, what it
replaces is kept (readable, marked replaced) and no longer sent to the model."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ChatEvent, MessagesReplaced, ReplyFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.errors import ContextDeskError, ProviderError
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore


@pytest.fixture
def chat(tmp_path: Path) -> tuple[ChatSession, ScriptedProvider]:
    provider = ScriptedProvider()
    agent = load_agent(create_agent(tmp_path / "agent").root)
    session = ChatSession.create(
        agent, ChatStore(tmp_path / "db.sqlite3"), ChatServices(lambda m: (provider, "x"))
    )
    return session, provider


def run(events: object) -> list[ChatEvent]:
    async def collect() -> list[ChatEvent]:
        return [event async for event in events]  # type: ignore[attr-defined]

    return asyncio.run(collect())


def test_regenerate_answers_the_last_message_again_and_keeps_the_old_answer(
    chat: tuple[ChatSession, ScriptedProvider],
) -> None:
    session, provider = chat
    provider.enqueue_reply("First answer.")
    run(session.send("What is 2 + 2?"))
    provider.enqueue_reply("Second answer.")
    events = run(session.regenerate())
    replaced = next(e for e in events if isinstance(e, MessagesReplaced))
    final = events[-1]
    assert isinstance(final, ReplyFinished) and final.message.content == "Second answer."
    assert final.message.request_context is not None
    everything = session.history()
    assert [(m.role, m.content, m.replaced) for m in everything] == [
        ("user", "What is 2 + 2?", False),
        ("assistant", "First answer.", True),
        ("assistant", "Second answer.", False),
    ]
    assert replaced.from_id == everything[1].id
    # The model was sent the question once, never the replaced answer.
    second = provider.requests[-1]
    assert [m.content for m in second.messages[1:]].count("First answer.") == 0
    assert second.messages[-1].content.endswith("What is 2 + 2?")


def test_retry_after_a_provider_error_sends_the_message_again(
    chat: tuple[ChatSession, ScriptedProvider],
) -> None:
    session, provider = chat
    provider.enqueue_error(ProviderError("the server refused the request; check the model name"))
    failed = run(session.send("hello"))[-1]
    assert isinstance(failed, ReplyFinished) and failed.message.status == "error"
    provider.enqueue_reply("Hi!")
    retried = run(session.regenerate())[-1]
    assert isinstance(retried, ReplyFinished) and retried.message.content == "Hi!"
    assert [m.role for m in session.history() if not m.replaced] == ["user", "assistant"]


def test_edit_and_resend_keeps_the_old_branch_and_answers_the_new_text(
    chat: tuple[ChatSession, ScriptedProvider],
) -> None:
    session, provider = chat
    provider.enqueue_reply("Paris.")
    run(session.send("Capital of France?"))
    provider.enqueue_reply("Berlin.")
    run(session.send("And of Germany?"))
    provider.enqueue_reply("Rome.")
    asked = next(m for m in session.history() if m.content == "And of Germany?")
    run(session.edit_and_resend(asked.id, "And of Italy?"))
    current = [m.content for m in session.history() if not m.replaced]
    kept = [m.content for m in session.history() if m.replaced]
    assert current == ["Capital of France?", "Paris.", "And of Italy?", "Rome."]
    assert kept == ["And of Germany?", "Berlin."]
    last = provider.requests[-1]
    assert all("Germany" not in m.content and "Berlin" not in m.content for m in last.messages)
    with pytest.raises(ContextDeskError, match="only a message of yours"):
        run(session.edit_and_resend(asked.id, "again"))  # the replaced one cannot be edited again


def test_nothing_to_regenerate_in_an_empty_chat(chat: tuple[ChatSession, ScriptedProvider]) -> None:
    session, _ = chat
    with pytest.raises(ContextDeskError, match="send a message first"):
        run(session.regenerate())
