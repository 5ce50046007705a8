"""Compacting a chat: when the history is too long for automatic compaction, and the summary a
compaction stores (written by a scripted model, on a real SQLite chat)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_core.agent.schema import AgentConfig
from agent_core.chat.chat_settings import ChatSettings, prompt_limits
from agent_core.chat.compacting import compact_chat, history_too_long
from agent_core.chat.prompt import history_messages
from agent_core.chat.resolved_model import ModelResolver, ResolvedModel
from agent_core.errors import ProviderError
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chat_state import ChatOverrides
from agent_core.store.chats import ChatStore, StoredMessage

LONG = " ".join(f"word{i}" for i in range(600))  # 600 tokens for the scripted model (one a word)


def settings(**context: object) -> ChatSettings:
    config = AgentConfig.model_validate(
        {"name": "test", "chat": {"model": "scripted:x", "max_output_tokens": 300}, "context": context}
    )
    return ChatSettings.of(config, ChatOverrides())


@pytest.fixture
def provider() -> ScriptedProvider:
    return ScriptedProvider()


@pytest.fixture
def model(provider: ScriptedProvider) -> ResolvedModel:
    return ModelResolver(lambda ref: (provider, "x")).resolve("scripted:x")


@pytest.fixture
def store(tmp_path: Path) -> ChatStore:
    return ChatStore(tmp_path / "chats.sqlite3")


def chat(store: ChatStore, *turns: tuple[str, str]) -> tuple[str, list[StoredMessage]]:
    session = store.create_session(agent_path="/agent")
    messages = []
    for question, answer in turns:
        messages.append(store.add_message(session.id, "user", question))
        messages.append(store.add_message(session.id, "assistant", answer))
    return session.id, messages


def tokens(model: ResolvedModel, history: list[StoredMessage]) -> int:
    return model.counter.messages(history_messages(history))


def test_history_is_too_long_only_past_compact_at_of_the_budget(
    store: ChatStore, model: ResolvedModel
) -> None:
    _, history = chat(store, (LONG, "ok"))
    size = tokens(model, history)
    assert size > 512  # the smallest window allowed
    at_size = settings(window=size, reply_reserve=0, compact_at=1.0)
    assert not history_too_long(history, model, at_size, prompt_limits(model, at_size))
    one_less = settings(window=size - 1, reply_reserve=0, compact_at=1.0)
    assert history_too_long(history, model, one_less, prompt_limits(model, one_less))
    # compactAt is a share of the budget (window minus the reply reserve)
    half = settings(window=2 * size, reply_reserve=0, compact_at=0.5)
    assert not history_too_long(history, model, half, prompt_limits(model, half))
    reserved = settings(window=2 * size, reply_reserve=2, compact_at=0.5)
    assert history_too_long(history, model, reserved, prompt_limits(model, reserved))


def test_history_is_never_too_long_with_auto_compact_off(store: ChatStore, model: ResolvedModel) -> None:
    _, history = chat(store, (LONG, "ok"))
    off = settings(window=512, reply_reserve=0, auto_compact=False)
    assert not history_too_long(history, model, off, prompt_limits(model, off))


def test_only_the_turns_after_the_latest_summary_count(store: ChatStore, model: ResolvedModel) -> None:
    session_id, history = chat(store, (LONG, "ok"), ("short", "reply"))
    store.add_message(session_id, "summary", "The user sent many words.", covers_until=history[1].id)
    small = settings(window=512, reply_reserve=0)
    assert not history_too_long(store.messages(session_id), model, small, prompt_limits(model, small))


def test_compacting_stores_the_models_summary_of_the_older_turns(
    store: ChatStore, provider: ScriptedProvider, model: ResolvedModel
) -> None:
    session_id, messages = chat(
        store, ("Plan a trip", "Rome or Paris?"), ("Rome please", "Booked Rome."), ("Thanks", "Welcome.")
    )
    provider.enqueue_reply("The user planned a trip and chose Rome, which was booked.")
    chosen = settings(keep_recent_turns=1)
    note = asyncio.run(compact_chat(store, session_id, model, chosen, prompt_limits(model, chosen)))

    assert note is not None and note.role == "summary"
    assert note.content == "The user planned a trip and chose Rome, which was booked."
    assert note.covers_until == messages[4].id - 1  # everything before the last user message
    [request] = provider.requests
    sent = request.messages[-1].content
    assert "Plan a trip" in sent and "Booked Rome." in sent and "Thanks" not in sent
    assert store.messages(session_id)[-1].id == note.id
    provider.assert_all_used()


def test_compacting_before_a_message_leaves_it_and_later_ones_out(
    store: ChatStore, provider: ScriptedProvider, model: ResolvedModel
) -> None:
    session_id, messages = chat(store, ("one", "a"), ("two", "b"), ("three", "c"))
    provider.enqueue_reply("Counted one and two so far.")
    chosen = settings(keep_recent_turns=1)
    limits = prompt_limits(model, chosen)
    note = asyncio.run(compact_chat(store, session_id, model, chosen, limits, before_id=messages[4].id))
    assert note is not None and note.covers_until == messages[2].id - 1  # the first turn only
    sent = provider.requests[0].messages[-1].content
    assert "one" in sent and "two" not in sent


def test_a_second_compaction_folds_in_the_previous_summary(
    store: ChatStore, provider: ScriptedProvider, model: ResolvedModel
) -> None:
    session_id, messages = chat(store, ("one", "a"), ("two", "b"))
    store.add_message(session_id, "summary", "Earlier the user counted.", covers_until=messages[1].id)
    for question, answer in (("three", "c"), ("four", "d")):
        store.add_message(session_id, "user", question)
        store.add_message(session_id, "assistant", answer)
    provider.enqueue_reply("The user counted to three so far.")
    chosen = settings(keep_recent_turns=1)
    note = asyncio.run(compact_chat(store, session_id, model, chosen, prompt_limits(model, chosen)))
    assert note is not None
    sent = provider.requests[0].messages[-1].content
    assert (
        "Earlier the user counted." in sent
        and "three" in sent
        and "one" not in sent.split("Conversation:")[1]
    )


def test_too_few_turns_compact_to_nothing_and_ask_no_model(
    store: ChatStore, provider: ScriptedProvider, model: ResolvedModel
) -> None:
    session_id, _ = chat(store, ("one", "a"), ("two", "b"))
    chosen = settings(keep_recent_turns=2)
    assert asyncio.run(compact_chat(store, session_id, model, chosen, prompt_limits(model, chosen))) is None
    assert provider.requests == [] and all(m.role != "summary" for m in store.messages(session_id))


def test_an_empty_summary_is_replaced_by_one_taken_from_the_turns(
    store: ChatStore, provider: ScriptedProvider, model: ResolvedModel
) -> None:
    session_id, _ = chat(store, ("Plan a trip", "Rome or Paris?"), ("Thanks", "Welcome."))
    provider.enqueue_reply("")
    chosen = settings(keep_recent_turns=1)
    note = asyncio.run(compact_chat(store, session_id, model, chosen, prompt_limits(model, chosen)))
    assert note is not None and "Plan a trip" in note.content and "empty" in note.content


def test_a_failing_model_leaves_the_chat_unchanged(
    store: ChatStore, provider: ScriptedProvider, model: ResolvedModel
) -> None:
    session_id, _ = chat(store, ("one", "a"), ("two", "b"))
    before = store.messages(session_id)
    provider.enqueue_error(ProviderError("the server is down; try again later"))
    chosen = settings(keep_recent_turns=1)
    with pytest.raises(ProviderError):
        asyncio.run(compact_chat(store, session_id, model, chosen, prompt_limits(model, chosen)))
    assert store.messages(session_id) == before
