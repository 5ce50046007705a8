"""Memories in requests: recalled per message through the chat's selection, visible in the
RequestContext (with the reason), in the manifest, and in what the model receives."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ReplyFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.items import ItemRef, RequestContext
from agent_core.context.selection import ContextSelector
from agent_core.memory.book import MemoryBook, MemoryDraft
from agent_core.memory.service import MemoryService
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.store.export import export_json, export_markdown

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    shared = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield shared
    shared.indexer.close()


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    root = tmp_path / "agent"
    create_agent(root)
    return load_agent(root)


class Chat:
    def __init__(self, agent: Agent, tmp_path: Path, selector: ContextSelector) -> None:
        self.store = ChatStore(tmp_path / "chats.sqlite3")
        self.memories = MemoryService(self.store.path, selector)
        self.provider = ScriptedProvider()
        self.session = ChatSession.create(
            agent,
            self.store,
            ChatServices(
                resolve_provider=lambda model: (self.provider, "demo"),
                selector=selector,
                memories=self.memories,
            ),
        )
        self.book: MemoryBook = self.memories.book_for(agent)

    def send(self, text: str) -> RequestContext:
        self.provider.enqueue_reply("ok")

        async def run() -> RequestContext:
            context = None
            async for event in self.session.send(text):
                if isinstance(event, ReplyFinished):
                    context = event.message.request_context
            assert context is not None
            return context

        return asyncio.run(asyncio.wait_for(run(), timeout=60))

    def store_texts(self, ids: list[str]) -> dict[str, str]:
        return self.book.store.texts(ids)

    def prompt_text(self) -> str:
        return "\n".join(m.content for m in self.provider.requests[-1].messages)


@pytest.fixture
def chat(agent: Agent, tmp_path: Path, selector: ContextSelector) -> Iterator[Chat]:
    opened = Chat(agent, tmp_path, selector)
    yield opened
    opened.memories.close()
    opened.store.close()


def memory_ids(context: RequestContext) -> list[str]:
    return [item.ref.name for item in context.of_type("memory")]


def test_a_recalled_memory_is_in_the_context_the_manifest_and_the_prompt(chat: Chat) -> None:
    cat = chat.book.add(MemoryDraft("my cat is called Miso")).memory
    chat.book.add(MemoryDraft("our database is PostgreSQL 16"))

    context = chat.send("what is my cat called?")

    [item] = context.of_type("memory")
    assert item.ref == ItemRef("memory", cat.id) and item.include_mode == "agent"
    assert item.reason.startswith("matched 'cat', 'call'") and item.score is not None
    assert context.manifest is not None
    assert [p.name for p in context.manifest.parts if p.kind == "memory"] == [cat.id]
    assert "<memory>my cat is called Miso</memory>" in chat.prompt_text()
    assert "PostgreSQL" not in chat.prompt_text()
    assert chat.book.get(cat.id).use_count == 1


def test_forgotten_superseded_and_proposed_memories_never_reach_a_request(chat: Chat) -> None:
    cat = chat.book.add(MemoryDraft("my cat is called Miso")).memory
    assert memory_ids(chat.send("what is my cat called?")) == [cat.id]
    chat.book.forget(cat.id)
    assert memory_ids(chat.send("what is my cat called again?")) == []
    old = chat.book.add(MemoryDraft("our database is MySQL 8")).memory
    new = chat.book.add(MemoryDraft("our database is now PostgreSQL 16")).memory
    chat.book.add(MemoryDraft("the database backups run at 2am"), "model", status="proposed")
    recalled = memory_ids(chat.send("which database do we use?"))
    assert new.id in recalled and old.id not in recalled and len(recalled) == 1


def test_pinned_memories_come_in_every_request_as_always(chat: Chat) -> None:
    rule = chat.book.add(MemoryDraft("answer in British English")).memory
    chat.book.pin(rule.id)
    context = chat.send("what is the capital of France?")
    assert [(i.ref.name, i.include_mode) for i in context.of_type("memory")] == [(rule.id, "always")]


def test_not_for_this_chat_and_memory_off_leave_memories_out(chat: Chat) -> None:
    cat = chat.book.add(MemoryDraft("my cat is called Miso")).memory
    first = chat.session
    chat.session.remove_item(ItemRef("memory", cat.id))
    assert memory_ids(chat.send("what is my cat called?")) == []

    chat.session = ChatSession.create(first.agent, chat.store, first.services)
    assert memory_ids(chat.send("what is my cat called?")) == [cat.id]  # another chat still recalls it
    chat.session.override_settings(memory={"enabled": False})
    assert memory_ids(chat.send("what is my cat called?")) == []


def test_what_if_shows_the_request_without_a_memory(chat: Chat) -> None:
    cat = chat.book.add(MemoryDraft("my cat is called Miso")).memory
    chat.send("what is my cat called?")
    reply = chat.store.messages(chat.session.id)[-1]
    without = asyncio.run(chat.session.what_if(reply, exclude=[ItemRef("memory", cat.id)]))
    again = asyncio.run(chat.session.what_if(reply))
    assert memory_ids(without) == [] and memory_ids(again) == [cat.id]


def test_what_if_can_turn_on_a_memory_that_was_left_out_and_resending_keeps_it(chat: Chat) -> None:
    chat.book.add(MemoryDraft("my cat is called Miso"))
    shell = chat.book.add(MemoryDraft("I use fish as my login shell")).memory
    chat.send("what is my cat called?")
    reply = chat.store.messages(chat.session.id)[-1]
    turned_on = asyncio.run(chat.session.what_if(reply, include=[ItemRef("memory", shell.id)]))
    on = {i.ref.name: i for i in turned_on.of_type("memory")}
    assert shell.id in on and on[shell.id].include_mode == "manual"
    assert on[shell.id].reason.startswith("added to this chat by you")
    # Applied to the chat (what Resend does), the memory is in every request of this chat...
    chat.session.add_item(ItemRef("memory", shell.id))
    assert shell.id in memory_ids(chat.send("what's the weather like in spring?"))
    # ...until it is left out again; a forgotten one never comes back, added or not.
    chat.book.forget(shell.id)
    assert shell.id not in memory_ids(chat.send("what's the weather like in autumn?"))


def test_exports_name_the_recalled_memories_with_their_reason(chat: Chat) -> None:
    chat.book.add(MemoryDraft("my cat is called Miso"))
    chat.send("what is my cat called?")
    session = chat.store.session(chat.session.id)
    assert session is not None
    messages = chat.store.messages(session.id)
    [memory] = chat.book.find()
    texts = chat.store_texts([memory.id])
    as_json = json.loads(export_json(session, messages, texts))
    assert as_json["memories"] == {memory.id: "my cat is called Miso"}
    [recalled] = [
        i for i in as_json["messages"][-1]["request_context"]["items"] if i["ref"]["type"] == "memory"
    ]
    assert "matched 'cat'" in recalled["reason"]
    markdown = export_markdown(session, messages, texts)
    assert f"- `{memory.id}` “my cat is called Miso” (agent: matched 'cat'" in markdown
    chat.book.delete_all()
    assert "(no longer kept" in export_markdown(session, messages, chat.store_texts([memory.id]))


def test_an_agent_without_memories_never_waits_for_the_embedding_model(tmp_path: Path) -> None:
    import threading

    from indexer import Indexer

    root = tmp_path / "plain"
    create_agent(root)
    for item in [*root.glob("rules/*.md"), *root.glob("references/*.md")]:
        item.unlink()  # nothing for selection to choose either: only memories could need the model
    shutil.rmtree(root / "skills")
    agent = load_agent(root)

    never = threading.Event()  # the model never finishes loading

    def stuck_backend() -> object:
        never.wait()
        raise AssertionError("unreachable")

    selector = ContextSelector(Indexer(stuck_backend), model_wait_seconds=60)  # type: ignore[arg-type]
    store = ChatStore(tmp_path / "chats.sqlite3")
    provider = ScriptedProvider()
    provider.enqueue_reply("ok")
    session = ChatSession.create(
        agent,
        store,
        ChatServices(
            resolve_provider=lambda model: (provider, "demo"),
            selector=selector,
            memories=MemoryService(store.path, selector),
        ),
    )

    async def run() -> RequestContext | None:
        async for event in session.send("hello"):
            if isinstance(event, ReplyFinished):
                return event.message.request_context
        return None

    context = asyncio.run(asyncio.wait_for(run(), timeout=10))
    never.set()
    assert context is not None and context.of_type("memory") == [] and context.notes.memory == ""
