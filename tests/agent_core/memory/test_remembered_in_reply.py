"""A memory the user has just saved is in the context of the reply that follows it, so the reply
cannot say it does not know (or cannot keep) what the "Remembered" card above it shows: a
"remember that …" saved at once is in that message's own request; one saved with /remember,
"Remember this" or Accept, in the next one, whatever that message is about."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.chat.events import MemoriesWritten, ReplyFinished
from agent_core.chat.session import ChatSession
from agent_core.context.selection import ContextSelector
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import StoredMessage
from tests.support.memory_chats import chat_with

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    shared = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield shared
    shared.indexer.close()


def reply_to(session: ChatSession, provider: ScriptedProvider, text: str) -> tuple[StoredMessage, str]:
    """The reply's saved message and the full text of the request it sent."""
    provider.enqueue_reply("Noted.")

    async def run() -> StoredMessage:
        events = [e async for e in session.send(text)]
        return next(e.message for e in events if isinstance(e, ReplyFinished))

    reply = asyncio.run(asyncio.wait_for(run(), timeout=60))
    sent = provider.requests[-1]
    return reply, "\n".join(str(m.content) for m in sent.messages)


def memory_ids(reply: StoredMessage) -> list[str]:
    assert reply.request_context is not None
    return [item.ref.name for item in reply.request_context.of_type("memory")]


def test_remember_that_is_in_the_request_of_its_own_reply(tmp_path: Path, selector: ContextSelector) -> None:
    session, provider, memories = chat_with(tmp_path, selector, "memory:\n  autoAccept: true\n")
    provider.enqueue_reply("Noted.")

    async def run() -> list[object]:
        return [e async for e in session.send("remember that the deploy freeze starts Friday")]

    events = asyncio.run(asyncio.wait_for(run(), timeout=60))
    [written] = [e for e in events if isinstance(e, MemoriesWritten)]
    [saved] = [o.memory for o in written.outcomes if o.memory is not None]
    assert saved.status == "active"  # the chat shows a "Remembered" card
    reply = next(e.message for e in events if isinstance(e, ReplyFinished))
    assert saved.id in memory_ids(reply)
    assert "The deploy freeze starts Friday" in "\n".join(
        str(m.content) for m in provider.requests[-1].messages
    )
    assert memories.book_for(session.agent).get(saved.id).use_count == 1


def test_slash_remember_is_in_the_next_request_whatever_it_is_about(
    tmp_path: Path, selector: ContextSelector
) -> None:
    session, provider, _ = chat_with(tmp_path, selector, "")
    outcome = asyncio.run(session.remember("Invoices go out on the 3rd of each month"))
    assert outcome.memory is not None
    reply, sent = reply_to(session, provider, "Thanks! Can you suggest a name for a pet turtle?")
    assert outcome.memory.id in memory_ids(reply)
    assert "Invoices go out on the 3rd of each month" in sent
    # Only the reply right after it is sure to have it; later ones recall it as usual.
    later, _ = reply_to(session, provider, "And one for a goldfish?")
    assert outcome.memory.id not in memory_ids(later)


def test_an_accepted_proposal_is_in_the_next_request(tmp_path: Path, selector: ContextSelector) -> None:
    session, provider, _ = chat_with(tmp_path, selector, "")
    provider.enqueue_reply("ok")

    async def run() -> list[MemoriesWritten]:
        return [
            e
            async for e in session.send("remember that Mira owns the billing service")
            if isinstance(e, MemoriesWritten)
        ]

    [written] = asyncio.run(asyncio.wait_for(run(), timeout=60))
    [proposal] = [o.memory for o in written.outcomes if o.memory is not None]
    assert proposal.status == "proposed"
    asyncio.run(session.decide_memory(proposal.id, accept=True))
    reply, sent = reply_to(session, provider, "What should I cook tonight?")
    assert proposal.id in memory_ids(reply)
    assert "Mira owns the billing service" in sent
