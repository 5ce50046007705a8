"""What-if: an earlier reply's RequestContext rebuilt with other selection settings or items
turned on or off, exactly as sending builds it; nothing is sent or saved."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ReplyFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.items import ItemRef, RequestContext
from agent_core.context.selection import ContextSelector
from agent_core.errors import ContextDeskError, ProviderError
from agent_core.providers.base import Provider
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore, StoredMessage

PIRATE = ItemRef("rule", "pirate")
CLEAR = ItemRef("rule", "clear-answers")
CODE = ItemRef("rule", "code-answers")


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    root = create_agent(tmp_path / "agent").root
    (root / "rules" / "pirate.md").write_text("---\ninclude: manual\n---\nSpeak like a pirate.\n")
    return load_agent(root)


class Chat:
    def __init__(self, agent: Agent, tmp_path: Path, selector: ContextSelector | None = None) -> None:
        self.provider = ScriptedProvider()
        self.store = ChatStore(tmp_path / "chats.sqlite3")
        self.broken = False
        self.session = ChatSession.create(
            agent, self.store, ChatServices(resolve_provider=self.resolve, selector=selector)
        )

    def resolve(self, model_ref: str) -> tuple[Provider, str]:
        if self.broken:
            raise ProviderError("the provider is not configured: add it under providers in agent.yaml")
        return self.provider, "x"

    def send(self, text: str, reply: str) -> StoredMessage:
        self.provider.enqueue_reply(reply)

        async def collect() -> list[Any]:
            return [event async for event in self.session.send(text)]

        final = asyncio.run(collect())[-1]
        assert isinstance(final, ReplyFinished) and final.message.request_context is not None
        return final.message

    def what_if(self, reply: StoredMessage, **changes: Any) -> RequestContext:
        """The what-if context, checking that nothing was sent or saved meanwhile."""
        before = (len(self.provider.requests), self.store.messages(self.session.id), self.session.items)
        context = asyncio.run(self.session.what_if(reply, **changes))
        after = (len(self.provider.requests), self.store.messages(self.session.id), self.session.items)
        assert after == before, "what-if sent or saved something"
        return context


def refs(context: RequestContext) -> list[ItemRef]:
    return [item.ref for item in context.items]


def test_an_earlier_reply_is_rebuilt_as_it_was_sent(agent: Agent, tmp_path: Path) -> None:
    chat = Chat(agent, tmp_path)
    first = chat.send("hello", "Hi there.")
    chat.send("@rule:pirate tell me a story", "Arr, once upon a time.")

    replayed = chat.what_if(first)
    original = first.request_context
    assert original is not None and original.manifest is not None and replayed.manifest is not None
    assert refs(replayed) == refs(original) == [CLEAR]  # not the rule the later message added
    assert replayed.manifest.total_tokens == original.manifest.total_tokens  # not the later history


def test_an_item_turned_on_joins_and_one_turned_off_leaves(agent: Agent, tmp_path: Path) -> None:
    chat = Chat(agent, tmp_path)
    reply = chat.send("hello", "Hi there.")

    toggled = chat.what_if(reply, include=[PIRATE], exclude=[CLEAR])
    assert refs(toggled) == [PIRATE]
    assert [i.include_mode for i in toggled.items] == ["manual"]
    assert toggled.manifest is not None
    assert [p.name for p in toggled.manifest.parts if p.kind == "rule"] == ["pirate"]
    assert PIRATE not in [i.ref for i in chat.session.items]  # the chat itself is unchanged


def test_a_message_without_a_recorded_context_is_refused(agent: Agent, tmp_path: Path) -> None:
    chat = Chat(agent, tmp_path)
    chat.send("hello", "Hi there.")
    question = chat.store.messages(chat.session.id)[0]
    with pytest.raises(ContextDeskError, match="no recorded context to compare with"):
        chat.what_if(question)


def test_a_model_that_cannot_be_resolved_is_said_instead_of_counts(agent: Agent, tmp_path: Path) -> None:
    chat = Chat(agent, tmp_path)
    reply = chat.send("hello", "Hi there.")
    chat.broken = True
    context = chat.what_if(reply, include=[PIRATE])
    assert PIRATE in refs(context) and context.manifest is None
    assert context.notes.budget == "the provider is not configured: add it under providers in agent.yaml"


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    shared = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield shared
    shared.indexer.close()


@pytest.mark.slow  # the real MiniLM model selects
def test_other_selection_settings_change_what_is_selected(
    agent: Agent, tmp_path: Path, selector: ContextSelector
) -> None:
    chat = Chat(agent, tmp_path, selector)
    reply = chat.send("fix the bug in my Python function that crashes on empty lists", "Check len first.")
    assert reply.request_context is not None and CODE in refs(reply.request_context)

    same = chat.what_if(reply)
    assert [i.ref for i in same.items if i.include_mode == "agent"] == [
        i.ref for i in reply.request_context.items if i.include_mode == "agent"
    ]
    strict = chat.what_if(reply, selection={"top_n": 0, "include_score": 1.0})
    assert CODE not in refs(strict)
    assert (strict.selection.top_n, strict.selection.include_score) == (0, 1.0)
    assert CODE in [m.ref for m in strict.near_misses]
