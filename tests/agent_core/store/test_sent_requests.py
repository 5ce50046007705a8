"""The exact request each reply sent, kept with it: what the provider got, credentials masked, bounded."""

from __future__ import annotations

import asyncio
import sqlite3
import zlib
from pathlib import Path

import pytest

from agent_core.agent import IncludeMode, load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ApprovalDecision, ApprovalRequest, ChatEvent, ReplyFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.providers.base import ChatMessage, ChatRequest, GenerationSettings, ProviderSettings, ToolSpec
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.store.sent_requests import MAX_KEPT_CHARACTERS, sent_request
from tests.support.chat_tools import PythonTools, Tool

PROVIDER_KEY = "k3y-0f-th1s-pr0v1der-9f8e7d"  # no well-known shape: masked because it is the key
PASTED_KEY = "sk-proj-abcdefghijklmnopqrstuvwx"


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    root = tmp_path / "agent"
    create_agent(root)
    return load_agent(root)


def chat(agent: Agent, store: ChatStore, provider: ScriptedProvider) -> ChatSession:
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    double = Tool("calc", "double", "Double a number", IncludeMode.ALWAYS, input_schema=schema)
    tools = PythonTools([double], {"double": lambda x: 2 * x})
    services = ChatServices(resolve_provider=lambda model: (provider, "x"), tools=tools)
    return ChatSession.create(agent, store, services)


def answer(session: ChatSession, text: str) -> list[ChatEvent]:
    async def run() -> list[ChatEvent]:
        events: list[ChatEvent] = []
        async for event in session.send(text):
            events.append(event)
            if isinstance(event, ApprovalRequest):
                event.decide(ApprovalDecision.ALLOW_ONCE)
        return events

    return asyncio.run(run())


def test_each_model_turn_keeps_exactly_what_it_sent(agent: Agent, tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "chats.sqlite3")
    provider = ScriptedProvider()
    provider.enqueue_tool_call("calc__double", {"x": 21}, id="c1")
    provider.enqueue_reply("It is 42.")
    session = chat(agent, store, provider)

    events = answer(session, "What is twice 21?")

    final = events[-1]
    assert isinstance(final, ReplyFinished)
    call_turn, answer_turn = [m for m in store.messages(session.id) if m.role == "assistant"]
    for message, request in zip((call_turn, answer_turn), provider.requests, strict=True):
        kept = session.sent_request(message.id)
        assert kept is not None and kept.model == session.chat_settings.model
        assert [(m.role, m.content) for m in kept.messages] == [(m.role, m.content) for m in request.messages]
        assert [t.name for t in kept.tools] == [t.name for t in request.tools] == ["calc__double"]
        assert kept.max_output_tokens == request.settings.max_output_tokens and kept.characters_left_out == 0
    kept = session.sent_request(final.message.id)
    assert kept is not None
    text = kept.as_text()
    system = provider.requests[1].messages[0].content
    assert system in text and "What is twice 21?" in text  # the system prompt with its items, the message
    assert '→ calls calc__double (call c1) with {"x": 21}' in text  # this reply's earlier turn
    assert "tool result of calc__double (call c1)" in text and "\n42\n" in text
    assert '"required": [\n    "x"\n  ]' in text  # the tool's schema as sent


def test_credentials_are_masked_before_the_request_is_written(agent: Agent, tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "chats.sqlite3")
    provider = ScriptedProvider(ProviderSettings("scripted", "scripted", api_key=PROVIDER_KEY))
    provider.enqueue_reply("Noted.")
    session = chat(agent, store, provider)
    text = (
        f"my key is {PASTED_KEY}, the provider's is {PROVIDER_KEY}, see https://me:hunter2pass@example.com/x"
    )

    [*_, final] = answer(session, text)

    assert isinstance(final, ReplyFinished)
    kept = session.sent_request(final.message.id)
    assert kept is not None
    message = kept.messages[-1].content
    assert message == "my key is ***, the provider's is ***, see https://***@example.com/x"
    with sqlite3.connect(store.path) as db:
        [(packed,)] = db.execute("SELECT request FROM sent_requests").fetchall()
    raw = zlib.decompress(packed).decode()
    assert "my key is ***" in raw
    assert PASTED_KEY not in raw and PROVIDER_KEY not in raw and "hunter2pass" not in raw


def test_a_huge_request_is_kept_bounded_with_its_start_end_and_short_parts_whole() -> None:
    huge = "start " + "x" * (3 * MAX_KEPT_CHARACTERS) + " end"
    request = ChatRequest(
        messages=[ChatMessage("system", "You are terse."), ChatMessage("user", huge)],
        settings=GenerationSettings(model="x"),
        tools=[ToolSpec("calc__double", "Double a number", {"type": "object"})],
    )

    kept = sent_request(request, "scripted:x")

    system, message = kept.messages
    assert system.content == "You are terse." and kept.tools[0].input_schema == '{\n  "type": "object"\n}'
    assert message.content.startswith("start ") and message.content.endswith(" end")
    assert "characters left out of this record" in message.content
    assert len(message.content) < MAX_KEPT_CHARACTERS + 100
    assert kept.characters_left_out == len(huge) - (MAX_KEPT_CHARACTERS - len(system.content) - 22)
    assert f"{kept.characters_left_out:,} characters left out" in message.content


def test_a_reply_without_a_kept_request_has_none_and_deleting_the_chat_deletes_them(
    agent: Agent, tmp_path: Path
) -> None:
    store = ChatStore(tmp_path / "chats.sqlite3")
    provider = ScriptedProvider()
    provider.enqueue_reply("Hello.")
    session = chat(agent, store, provider)
    [*_, final] = answer(session, "hi")
    assert isinstance(final, ReplyFinished)
    user = store.messages(session.id)[0]
    assert session.sent_request(user.id) is None  # never sent to a model itself
    assert session.sent_request(final.message.id) is not None

    store.delete_session(session.id)

    with sqlite3.connect(store.path) as db:
        assert db.execute("SELECT count(*) FROM sent_requests").fetchone() == (0,)


def test_a_long_chat_keeps_only_its_newest_requests_compressed(agent: Agent, tmp_path: Path) -> None:
    from agent_core.store.chats import SENT_REQUESTS_KEPT

    store = ChatStore(tmp_path / "chats.sqlite3")
    provider = ScriptedProvider()
    session = chat(agent, store, provider)
    replies = []
    for turn in range(SENT_REQUESTS_KEPT + 3):
        provider.enqueue_reply(f"Answer {turn}.")
        [*_, final] = answer(session, f"question {turn} " + "words " * 200)
        assert isinstance(final, ReplyFinished)
        replies.append(final.message.id)

    assert [session.sent_request(r) is None for r in replies[:3]] == [True, True, True]
    assert all(session.sent_request(r) is not None for r in replies[3:])
    with sqlite3.connect(store.path) as db:
        count, stored = db.execute("SELECT count(*), sum(length(request)) FROM sent_requests").fetchone()
        [(newest,)] = db.execute(
            "SELECT request FROM sent_requests WHERE message_id = ?", (replies[-1],)
        ).fetchall()
    assert count == SENT_REQUESTS_KEPT
    assert len(newest) * 4 < len(zlib.decompress(newest))  # what is kept is compressed
    assert stored < SENT_REQUESTS_KEPT * 20_000
