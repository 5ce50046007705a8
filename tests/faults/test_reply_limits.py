"""A provider that trickles forever or streams far more than maxOutputTokens: the reply stops,
what arrived is kept and marked, and the user is told which setting to change."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ReplyFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.providers.retry import stream_with_retries
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.tools.runtime import NoTools


async def no_sleep(seconds: float) -> None:
    return None


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    root = tmp_path / "agent"
    create_agent(root)
    return load_agent(root)


def session_with(agent: Agent, tmp_path: Path, provider: ScriptedProvider) -> tuple[ChatSession, ChatStore]:
    store = ChatStore(tmp_path / "chats.sqlite3")
    session = ChatSession.create(
        agent,
        store,
        ChatServices(
            resolve_provider=lambda model: (provider, model.partition(":")[2]),
            tools=NoTools(),
            streamer=functools.partial(stream_with_retries, sleep=no_sleep),
        ),
    )
    return session, store


async def finished(session: ChatSession, text: str) -> ReplyFinished:
    async def run() -> ReplyFinished:
        last = None
        async for event in session.send(text):
            if isinstance(event, ReplyFinished):
                last = event
        assert last is not None
        return last

    return await asyncio.wait_for(run(), timeout=30)


def test_a_trickling_provider_is_stopped_at_the_reply_deadline(agent: Agent, tmp_path: Path) -> None:
    never = asyncio.Event()  # the next token never comes, like a server sending one every few minutes
    provider = ScriptedProvider()
    provider.enqueue_reply(chunks=["Slowly ", "but ", never, "surely"])
    session, store = session_with(agent, tmp_path, provider)
    session.override_settings(chat={"reply_timeout_seconds": 1})

    message = asyncio.run(finished(session, "tell me a story")).message

    assert message.status == "partial" and message.content == "Slowly but "
    assert message.error is not None and "longer than 1 s (replyTimeoutSeconds)" in message.error
    stored = store.messages(session.id)[-1]
    assert (stored.status, stored.content) == ("partial", "Slowly but ")


def test_a_reply_far_beyond_max_output_tokens_is_cut_and_marked(agent: Agent, tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply(chunks=["x" * 10_000] * 1_000)  # 10 MB for a 100-token reply
    session, store = session_with(agent, tmp_path, provider)
    session.override_settings(chat={"max_output_tokens": 100})

    message = asyncio.run(finished(session, "hi")).message

    assert message.status == "partial" and len(message.content) == 65_536
    assert message.error is not None and "maxOutputTokens (100)" in message.error
    assert len(store.messages(session.id)[-1].content) == 65_536
