"""ChatMemories, the one object a chat reaches memories through: it decides, once per message,
whether the offline rules or the chat's model look for memories (the rules' writes come before
the reply, the model's after it), and what a request recalls (memories the user added are
recalled whatever they match; memories left out of the chat never are)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.agent.schema import MemoryConfig
from agent_core.context.items import ItemRef, SessionItem
from agent_core.context.selection import ContextSelector
from agent_core.errors import ProviderError
from agent_core.memory.book import MemoryDraft
from agent_core.memory.chat_extraction import MemoryWrites, ProviderResolver
from agent_core.memory.chat_memories import ChatMemories
from agent_core.memory.extraction_model import SYSTEM_PROMPT
from agent_core.memory.service import MemoryService
from agent_core.providers.base import ChatRequest, Provider, ProviderSettings, StreamEvent
from agent_core.providers.local_llama import LocalLlamaProvider
from agent_core.providers.scripted import ScriptedProvider
from tests.support.scripted_models import WAIT, Providers

pytestmark = pytest.mark.slow

MESSAGE = "we deploy on fly.io now"
MODEL_TEXT, MODEL_QUOTE = "We deploy on fly.io", "we deploy on fly.io"  # the rules quote all of it
REPLY = ("reply part 1", "reply part 2")


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    shared = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield shared
    shared.indexer.close()


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    create_agent(tmp_path / "agent")
    return load_agent(tmp_path / "agent")


@pytest.fixture
def service(tmp_path: Path, selector: ContextSelector) -> Iterator[MemoryService]:
    memories = MemoryService(tmp_path / "chats.sqlite3", selector)  # real SQLite
    yield memories
    memories.close()


def chat_memories(
    service: MemoryService,
    agent: Agent,
    config: MemoryConfig,
    resolve: ProviderResolver | None,
    excluded: tuple[ItemRef, ...] = (),
) -> ChatMemories:
    return ChatMemories(
        service, lambda: agent, lambda: config, "chat-1", excluded=lambda: excluded, resolve_provider=resolve
    )


async def reply() -> AsyncGenerator[str, None]:
    for part in REPLY:
        yield part


def steps_of(memories: ChatMemories, text: str, model_ref: str) -> list[str | MemoryWrites]:
    async def run() -> list[str | MemoryWrites]:
        return [step async for step in memories.extract_around(text, 7, None, model_ref, reply())]

    return asyncio.run(asyncio.wait_for(run(), timeout=WAIT * 3))


def written(step: str | MemoryWrites) -> list[tuple[str, str]]:
    """(text, quote) of each memory a step wrote."""
    assert isinstance(step, MemoryWrites), f"expected memory writes, got the reply's {step!r}"
    return [(o.memory.text, o.memory.provenance.quote) for o in step.outcomes if o.memory is not None]


def actors(service: MemoryService, agent: Agent) -> list[str]:
    book = service.book_for(agent)
    return [event.actor for memory in book.find(statuses=None) for event in book.history(memory.id)]


def model_answer(*memories: dict[str, Any]) -> str:
    return json.dumps({"memories": list(memories)})


def memory_questions(provider: ScriptedProvider) -> list[ChatRequest]:
    return [r for r in provider.requests if r.messages and r.messages[0].content == SYSTEM_PROMPT]


def test_with_extraction_rules_the_rules_write_before_the_reply_and_no_model_is_asked(
    service: MemoryService, agent: Agent
) -> None:
    providers = Providers()
    memories = chat_memories(service, agent, MemoryConfig(extraction="rules"), providers.resolve)

    steps = steps_of(memories, MESSAGE, "cloud:m")

    assert steps[1:] == list(REPLY)
    assert written(steps[0]) == [(written(steps[0])[0][0], MESSAGE)]
    assert actors(service, agent) == ["extractor"]
    assert memory_questions(providers["m"]) == []


def test_with_extraction_model_a_capable_model_writes_after_the_reply_and_the_rules_do_not(
    service: MemoryService, agent: Agent
) -> None:
    providers = Providers()
    providers["m"].enqueue_reply(model_answer({"text": MODEL_TEXT, "quote": MODEL_QUOTE}))
    memories = chat_memories(service, agent, MemoryConfig(extraction="model"), providers.resolve)

    steps = steps_of(memories, MESSAGE, "cloud:m")

    assert steps[:2] == list(REPLY) and len(steps) == 3  # nothing before the reply
    assert written(steps[2]) == [(MODEL_TEXT, MODEL_QUOTE)]
    assert actors(service, agent) == ["model"]
    [question] = memory_questions(providers["m"])
    assert MESSAGE in question.messages[-1].content


class OfflineModel(LocalLlamaProvider):
    """The bundled offline provider's type, scripted (no model file is loaded)."""

    def __init__(self) -> None:
        super().__init__(ProviderSettings(provider_id="local", type="local"))
        self.script = ScriptedProvider()

    def stream(self, request: ChatRequest) -> Any:
        async def events() -> AsyncGenerator[StreamEvent, None]:
            async for event in self.script.stream(request):
                yield event

        return events()

    def tool_calling(self, model_id: str) -> Any:
        return "native"  # even so: the bundled model is never asked


def test_the_bundled_offline_model_is_never_asked_the_rules_stand_in(
    service: MemoryService, agent: Agent
) -> None:
    offline = OfflineModel()
    offline.script.enqueue_reply(model_answer({"text": MODEL_TEXT, "quote": MODEL_QUOTE}))
    memories = chat_memories(
        service, agent, MemoryConfig(extraction="model"), lambda ref: (offline, "smollm2-135m-instruct")
    )

    steps = steps_of(memories, MESSAGE, "local:smollm2-135m-instruct")

    assert steps[1:] == list(REPLY) and written(steps[0])[0][1] == MESSAGE
    assert actors(service, agent) == ["extractor"]
    assert offline.script.requests == []


def test_a_model_that_cannot_be_set_up_leaves_it_to_the_rules(service: MemoryService, agent: Agent) -> None:
    def broken(model_ref: str) -> tuple[Provider, str]:
        raise ProviderError("no API key for cloud: add one in Settings")

    memories = chat_memories(service, agent, MemoryConfig(extraction="model"), broken)

    steps = steps_of(memories, MESSAGE, "cloud:m")

    assert steps[1:] == list(REPLY) and written(steps[0])[0][1] == MESSAGE
    assert actors(service, agent) == ["extractor"]


def test_an_explicit_request_is_taken_by_the_rules_at_once_even_with_extraction_model(
    service: MemoryService, agent: Agent
) -> None:
    providers = Providers()
    memories = chat_memories(service, agent, MemoryConfig(extraction="model"), providers.resolve)

    steps = steps_of(memories, "remember that we deploy on fly.io", "cloud:m")

    assert steps[1:] == list(REPLY)
    [(text, _quote)] = written(steps[0])
    assert "fly.io" in text
    assert memory_questions(providers["m"]) == []


def test_memories_off_write_nothing_and_ask_nothing(service: MemoryService, agent: Agent) -> None:
    providers = Providers()
    memories = chat_memories(
        service, agent, MemoryConfig(enabled=False, extraction="model"), providers.resolve
    )

    assert steps_of(memories, "remember that we deploy on fly.io", "cloud:m") == list(REPLY)
    assert service.find(agent, None) == [] and memory_questions(providers["m"]) == []


def test_recall_takes_the_chats_additions_and_never_what_it_left_out_and_a_preview_marks_none_used(
    service: MemoryService, agent: Agent
) -> None:
    book = service.book_for(agent)
    added = book.add(MemoryDraft("My cat is called Miso")).memory
    left_out = book.add(MemoryDraft("Our staging server is in Frankfurt")).memory
    assert added is not None and left_out is not None
    refs = (ItemRef("memory", added.id), ItemRef("memory", left_out.id))
    memories = chat_memories(service, agent, MemoryConfig(), None, excluded=(refs[1],))

    def recall(chat: ChatMemories) -> set[str]:
        async def run() -> set[str]:
            found = await chat.recall(
                "which database do we use for billing?", [SessionItem(ref, "manual") for ref in refs]
            )
            return {item.ref.name for item in found.items}

        return asyncio.run(asyncio.wait_for(run(), timeout=WAIT * 3))

    assert recall(memories.preview()) == {added.id}
    assert book.get(added.id).use_count == 0  # a what-if sends nothing
    assert recall(memories) == {added.id}
    assert book.get(added.id).use_count == 1
