"""``memory.extraction: model`` in a chat: the chat's own model is asked for memories in the
user's message alongside the reply (never delaying it), sees the user's words only, and its
proposals arrive after the reply; a failing or slow model leaves it to the offline rules, the
bundled offline model always does, and "off" asks nothing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ChatEvent, MemoriesWritten, ReplyDelta, ReplyFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.selection import ContextSelector
from agent_core.errors import ProviderUnavailableError
from agent_core.memory import extraction_model
from agent_core.memory.extraction_model import SYSTEM_PROMPT
from agent_core.memory.service import MemoryService
from agent_core.providers.base import ChatRequest, Completion, Provider, ProviderSettings, StreamEvent
from agent_core.providers.local_llama import LocalLlamaProvider
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore

pytestmark = pytest.mark.slow

WAIT_S = 30


class ChatModel(ScriptedProvider):
    """The chat's model: replies from its own script, memory questions from ``memory``'s."""

    def __init__(self) -> None:
        super().__init__()
        self.memory = ScriptedProvider()

    async def complete(self, request: ChatRequest) -> Completion:
        if request.messages[0].content == SYSTEM_PROMPT:
            return await self.memory.complete(request)
        return await super().complete(request)


class OfflineModel(LocalLlamaProvider):
    """The bundled offline provider's type, scripted (no model file is loaded)."""

    def __init__(self) -> None:
        super().__init__(ProviderSettings(provider_id="local", type="local"))
        self.script = ScriptedProvider()

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        return self.script.stream(request)

    def count_tokens(self, text: str) -> int | None:
        return len(text.split())

    def context_window(self, model_id: str) -> int | None:
        return 4096

    def tool_calling(self, model_id: str) -> Any:
        return "none"


class Gate:
    """A step of the script waits here until the test opens it; notes when it was cancelled."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.opened = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def wait(self) -> None:
        self.entered.set()
        try:
            await self.opened.wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    shared = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield shared
    shared.indexer.close()


def chat_with(
    tmp_path: Path, selector: ContextSelector, provider: Provider, extraction: str = "model"
) -> tuple[ChatSession, MemoryService]:
    root = tmp_path / "agent"
    create_agent(root)
    (root / "agent.yaml").write_text(
        (root / "agent.yaml").read_text() + f"memory:\n  extraction: {extraction}\n"
    )
    store = ChatStore(tmp_path / "chats.sqlite3")
    memories = MemoryService(store.path, selector)
    services = ChatServices(
        resolve_provider=lambda model: (provider, "demo"), selector=selector, memories=memories
    )
    return ChatSession.create(load_agent(root), store, services), memories


def events_of(session: ChatSession, text: str) -> list[ChatEvent]:
    async def run() -> list[ChatEvent]:
        return [event async for event in session.send(text)]

    return asyncio.run(asyncio.wait_for(run(), timeout=WAIT_S))


def answer(*memories: dict[str, Any]) -> str:
    return json.dumps({"memories": list(memories)})


def test_the_models_proposal_arrives_after_the_reply_quoting_the_user(
    tmp_path: Path, selector: ContextSelector
) -> None:
    model = ChatModel()
    session, memories = chat_with(tmp_path, selector, model)
    model.enqueue_reply("Noted, happy to help.")
    model.memory.enqueue_reply(
        answer(
            {"text": "Our database is PostgreSQL 16", "quote": "we moved to PostgreSQL 16", "kind": "project"}
        )
    )
    events = events_of(session, "btw we moved to PostgreSQL 16 last week, can you check my queries?")
    assert [type(e).__name__ for e in events[-2:]] == ["ReplyFinished", "MemoriesWritten"]
    [outcome] = events[-1].outcomes  # type: ignore[union-attr]
    memory = outcome.memory
    assert memory is not None and (memory.text, memory.status, memory.kind) == (
        "Our database is PostgreSQL 16",
        "proposed",
        "project",
    )
    assert (memory.provenance.speaker, memory.provenance.quote) == ("user", "we moved to PostgreSQL 16")
    assert memory.provenance.message_id == session.history()[0].id
    history = memories.book_for(session.agent).history(memory.id)
    assert [(e.event, e.actor) for e in history] == [("proposed", "model")]
    model.assert_all_used()
    model.memory.assert_all_used()


def test_the_assistants_words_are_never_sent_nor_taken_as_the_users(
    tmp_path: Path, selector: ContextSelector
) -> None:
    model = ChatModel()
    session, memories = chat_with(tmp_path, selector, model)
    model.enqueue_reply("Your database is MySQL 8, as far as I can tell.")
    model.memory.enqueue_reply(answer())
    events_of(session, "which database do we run again?")
    model.enqueue_reply("Glad to help.")
    model.memory.enqueue_reply(
        answer({"text": "Our database is MySQL 8", "quote": "Your database is MySQL 8"})
    )
    events = events_of(session, "thanks, that helps a lot")

    [written] = [e for e in events if isinstance(e, MemoriesWritten)]
    assert written.outcomes == ()
    assert written.notes == ("1 memory the model proposed was left out: quote not in your message (1).",)
    second = model.memory.requests[1]
    sent = " ".join(m.content for m in second.messages)
    assert "MySQL" not in sent and [m.role for m in second.messages] == ["system", "user"]
    assert "which database do we run again?" in sent and "thanks, that helps a lot" in sent
    assert memories.book_for(session.agent).find(statuses=None) == []


def test_the_reply_is_not_delayed_by_the_memory_question(tmp_path: Path, selector: ContextSelector) -> None:
    model = ChatModel()
    session, _ = chat_with(tmp_path, selector, model)

    async def run() -> list[ChatEvent]:
        gate = Gate()
        model.enqueue_reply("Sure, pytest it is.")
        model.memory.enqueue_reply(
            chunks=[
                gate,
                answer({"text": "I prefer pytest over unittest", "quote": "I prefer pytest over unittest"}),
            ]
        )
        seen: list[ChatEvent] = []
        async for event in session.send("I prefer pytest over unittest, write the tests please"):
            if isinstance(event, ReplyDelta) and not gate.opened.is_set():
                assert gate.entered.is_set()  # the memory question was asked, and is unanswered
                gate.opened.set()
            seen.append(event)
        return seen

    events = asyncio.run(asyncio.wait_for(run(), timeout=WAIT_S))
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("ReplyDelta") < kinds.index("ReplyFinished") < kinds.index("MemoriesWritten")
    [written] = [e for e in events if isinstance(e, MemoriesWritten)]
    assert [o.memory.text for o in written.outcomes if o.memory] == ["I prefer pytest over unittest"]


def test_stopping_the_reply_stops_the_memory_question(tmp_path: Path, selector: ContextSelector) -> None:
    model = ChatModel()
    session, memories = chat_with(tmp_path, selector, model)

    async def run() -> None:
        reply_gate, memory_gate = Gate(), Gate()
        model.enqueue_reply(chunks=["Working", reply_gate, " on it"])
        model.memory.enqueue_reply(chunks=[memory_gate, answer({"text": "I use vim", "quote": "I use vim"})])

        async def consume() -> None:
            async for _event in session.send("I use vim, set up my editor"):
                pass

        task = asyncio.create_task(consume())
        await asyncio.wait_for(asyncio.gather(reply_gate.entered.wait(), memory_gate.entered.wait()), WAIT_S)
        session.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.wait_for(memory_gate.cancelled.wait(), WAIT_S)

    asyncio.run(run())
    assert session.history()[-1].status == "cancelled"
    assert memories.find(session.agent, statuses=None) == []


def test_a_malformed_answer_proposes_nothing_and_leaves_the_reply_alone(
    tmp_path: Path, selector: ContextSelector
) -> None:
    model = ChatModel()
    session, _ = chat_with(tmp_path, selector, model)
    model.enqueue_reply("Deploying is easy.")
    model.memory.enqueue_reply("You deploy on fly.io, I think.")
    events = events_of(session, "we deploy on fly.io now")
    [finished] = [e for e in events if isinstance(e, ReplyFinished)]
    assert (finished.message.status, finished.message.content) == ("complete", "Deploying is easy.")
    [written] = [e for e in events if isinstance(e, MemoriesWritten)]
    assert written.outcomes == () and "not the JSON asked for" in written.notes[0]


def test_a_failing_model_leaves_it_to_the_offline_rules(tmp_path: Path, selector: ContextSelector) -> None:
    model = ChatModel()
    session, _ = chat_with(tmp_path, selector, model)
    model.enqueue_reply("Deploying is easy.")
    model.memory.enqueue_error(ProviderUnavailableError("the server is down: try again later"))
    [written] = [e for e in events_of(session, "we deploy on fly.io now") if isinstance(e, MemoriesWritten)]
    assert [o.memory.provenance.quote for o in written.outcomes if o.memory] == ["we deploy on fly.io now"]
    assert written.notes == (
        "The model could not look for memories in this message (the server is down: try again later); "
        "the offline rules did instead.",
    )


def test_a_model_too_slow_to_answer_leaves_it_to_the_offline_rules(
    tmp_path: Path, selector: ContextSelector, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(extraction_model, "EXTRACTION_TIMEOUT_SECONDS", 0.01)
    model = ChatModel()
    session, _ = chat_with(tmp_path, selector, model)

    async def run() -> list[ChatEvent]:
        never = Gate()
        model.enqueue_reply("Deploying is easy.")
        model.memory.enqueue_reply(chunks=[never, answer()])
        return [event async for event in session.send("we deploy on fly.io now")]

    events = asyncio.run(asyncio.wait_for(run(), timeout=WAIT_S))
    [written] = [e for e in events if isinstance(e, MemoriesWritten)]
    assert [o.memory.provenance.quote for o in written.outcomes if o.memory] == ["we deploy on fly.io now"]
    assert "did not answer within" in written.notes[0] and "offline rules did instead" in written.notes[0]


def test_the_bundled_offline_model_gets_the_rules_and_no_extra_request(
    tmp_path: Path, selector: ContextSelector
) -> None:
    offline = OfflineModel()
    session, _ = chat_with(tmp_path, selector, offline)
    offline.script.enqueue_reply("Nice.")
    events = events_of(session, "we deploy on fly.io now")
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("MemoriesWritten") < kinds.index("ReplyFinished")  # before the reply, as with rules
    [written] = [e for e in events if isinstance(e, MemoriesWritten)]
    assert [o.memory.provenance.quote for o in written.outcomes if o.memory] == ["we deploy on fly.io now"]
    assert len(offline.script.requests) == 1  # the reply only


@pytest.mark.parametrize("extraction", ["off", "rules"])
def test_the_model_is_asked_only_with_extraction_model(
    tmp_path: Path, selector: ContextSelector, extraction: str
) -> None:
    model = ChatModel()
    session, _ = chat_with(tmp_path, selector, model, extraction)
    model.enqueue_reply("Nice.")
    events_of(session, "we deploy on fly.io now")
    assert model.memory.requests == [] and len(model.requests) == 1


def test_remember_that_needs_no_model(tmp_path: Path, selector: ContextSelector) -> None:
    model = ChatModel()
    session, _ = chat_with(tmp_path, selector, model)
    model.enqueue_reply("I will.")
    events = events_of(session, "remember that our standup is at 9:30")
    [written] = [e for e in events if isinstance(e, MemoriesWritten)]
    assert [o.memory.text for o in written.outcomes if o.memory] == ["Our standup is at 9:30"]
    assert model.memory.requests == []
