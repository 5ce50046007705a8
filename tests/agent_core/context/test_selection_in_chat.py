"""Agent-mode items chosen per message by the real MiniLM model, and what happens when it cannot."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ChatEvent, ContextBuilt
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.items import ItemRef
from agent_core.context.selection import ContextSelector
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from indexer import Indexer, ModelLoadError, SelectionSettings, onnx_backend


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    root = tmp_path / "agent"
    create_agent(root)
    (root / "references" / "refund-policy.md").write_text(
        "---\ndescription: When customers get their money back\ninclude: agent\npriorityLevel: 10\n---\n"
        "Customers may ask for a refund within 30 days of purchase. Refunds go back to the original card "
        "within 5 business days. Annual plans are refunded pro rata after the first 30 days.\n"
    )
    return load_agent(root)


@pytest.fixture(scope="module")
def shared_selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    selector = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield selector
    selector.indexer.close()


def context_of(
    agent: Agent, tmp_path: Path, selector: ContextSelector, text: str
) -> tuple[ContextBuilt, ScriptedProvider]:
    provider = ScriptedProvider()
    provider.enqueue_reply("ok")
    session = ChatSession.create(
        agent,
        ChatStore(tmp_path / "chats.sqlite3"),
        ChatServices(resolve_provider=lambda m: (provider, "x"), selector=selector),
    )

    async def run() -> list[ChatEvent]:
        return [event async for event in session.send(text)]

    events = asyncio.run(run())
    return next(e for e in events if isinstance(e, ContextBuilt)), provider


@pytest.mark.slow
def test_a_relevant_reference_is_selected_with_its_score_and_sent(
    agent: Agent, tmp_path: Path, shared_selector: ContextSelector
) -> None:
    built, provider = context_of(
        agent, tmp_path, shared_selector, "Can I get my money back for the annual plan?"
    )
    agent_items = [i for i in built.context.items if i.include_mode == "agent"]
    assert [i.ref.key for i in agent_items][:1] == ["reference:refund-policy"]
    assert agent_items[0].score is not None and 0.3 < agent_items[0].score <= 1.0
    assert built.context.selection.status == "ok"
    assert all(miss.ref.key != "reference:refund-policy" for miss in built.context.near_misses)
    assert built.context.near_misses  # the other agent items were considered and left out
    user_message = provider.requests[0].messages[-1].content
    assert "Refunds go back to the original card" in user_message
    assert user_message.endswith("Can I get my money back for the annual plan?")


@pytest.mark.slow
def test_a_message_that_needs_nothing_gets_no_agent_items(
    agent: Agent, tmp_path: Path, shared_selector: ContextSelector
) -> None:
    built, _ = context_of(agent, tmp_path, shared_selector, "thanks, that's all for today!")
    assert [i for i in built.context.items if i.include_mode == "agent"] == []


@pytest.mark.slow
def test_an_item_under_the_minimum_score_says_which_score_it_needed(
    agent: Agent, tmp_path: Path, shared_selector: ContextSelector
) -> None:
    built, _ = context_of(agent, tmp_path, shared_selector, "thanks, that's all for today!")
    under = [miss for miss in built.context.near_misses if miss.reason == "below_floor"]
    assert under, built.context.near_misses
    minimum = SelectionSettings().min_score  # the hybrid's own, as the agent sets none
    for miss in under:
        assert miss.needed == minimum and miss.score is not None and miss.score < minimum
    floors = ("below_floor", "below_question_floor", "below_clause_floor")
    others = [miss for miss in built.context.near_misses if miss.reason not in floors]
    assert all(miss.needed is None for miss in others)
    assert built.context.selection.min_score == minimum  # the header's minScore is the bar they needed


def test_while_the_model_loads_the_request_goes_on_without_agent_items(agent: Agent, tmp_path: Path) -> None:
    release = threading.Event()

    def slow_backend():  # type: ignore[no-untyped-def]
        release.wait(timeout=30)
        return onnx_backend()

    selector = ContextSelector(Indexer(backend_factory=slow_backend), model_wait_seconds=0.0)
    try:
        built, provider = context_of(agent, tmp_path, selector, "Can I get a refund?")
        assert built.context.selection.status == "model_loading"
        assert [i.include_mode for i in built.context.items] == ["always"]
        assert provider.requests[0].messages[-1].content == "Can I get a refund?"
    finally:
        release.set()
        selector.indexer.close()


def test_a_model_that_fails_to_load_is_reported_and_the_chat_goes_on(agent: Agent, tmp_path: Path) -> None:
    def broken_backend():  # type: ignore[no-untyped-def]
        raise ModelLoadError("the model file is damaged: reinstall ContextDesk")

    selector = ContextSelector(Indexer(backend_factory=broken_backend))
    built, provider = context_of(agent, tmp_path, selector, "Can I get a refund?")
    assert built.context.selection.status == "failed"
    assert "reinstall" in built.context.selection.detail
    assert len(provider.requests) == 1


@pytest.mark.slow
def test_what_if_reruns_selection_with_other_settings_and_toggled_items(
    agent: Agent, tmp_path: Path, shared_selector: ContextSelector
) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("ok")
    session = ChatSession.create(
        agent,
        ChatStore(tmp_path / "chats.sqlite3"),
        ChatServices(resolve_provider=lambda m: (provider, "x"), selector=shared_selector),
    )

    async def scenario() -> None:
        events = [event async for event in session.send("Can I get my money back for the annual plan?")]
        reply = events[-1].message  # type: ignore[union-attr]
        assert "reference:refund-policy" in [i.ref.key for i in reply.request_context.items]

        without = await session.what_if(
            reply, exclude=[ItemRef("reference", "refund-policy"), ItemRef("rule", "clear-answers")]
        )
        keys = [i.ref.key for i in without.items]
        assert "reference:refund-policy" not in keys and "rule:clear-answers" not in keys
        assert without.manifest is not None and reply.request_context.manifest is not None
        assert without.manifest.total_tokens < reply.request_context.manifest.total_tokens

        anchor = await session.what_if(
            reply, selection={"strategy": "anchor", "top_n": 3, "include_score": 0.99}
        )
        assert anchor.selection.strategy == "anchor"
        assert len([i for i in anchor.items if i.include_mode == "agent"]) == 3  # the anchor fills topN

        pinned = await session.what_if(reply, include=[ItemRef("reference", "markdown-cheatsheet")])
        assert ("reference:markdown-cheatsheet", "manual") in [
            (i.ref.key, i.include_mode) for i in pinned.items
        ]
        assert len(provider.requests) == 1  # nothing was sent

    asyncio.run(scenario())


@pytest.mark.slow
def test_a_workflow_is_selected_per_message_like_any_agent_mode_tool(
    tmp_path: Path, shared_selector: ContextSelector
) -> None:
    from agent_core.workflows.tools import WithWorkflows

    root = tmp_path / "agent"
    create_agent(root)
    (root / "workflows").mkdir()
    (root / "workflows" / "bug-triage.yaml").write_text(
        "description: Triage a bug report, rate its severity and find the team that owns the code\n"
        "inputs:\n  report: {type: string}\n"
        "states:\n  - id: classify\n    task: 'Classify {{report}}'\n    next: {state_id: end}\n"
    )
    agent = load_agent(root)
    runtime = WithWorkflows(ChatServices(lambda m: (ScriptedProvider(), "x")).tools, lambda: agent.workflows)

    def tools_for(text: str) -> tuple[list[str], list[str]]:
        provider = ScriptedProvider()
        provider.enqueue_reply("ok")
        services = ChatServices(
            resolve_provider=lambda m: (provider, "x"), selector=shared_selector, tools=runtime
        )
        session = ChatSession.create(agent, ChatStore(tmp_path / "chats.sqlite3"), services)

        async def run() -> list[ChatEvent]:
            return [event async for event in session.send(text)]

        built = next(e for e in asyncio.run(run()) if isinstance(e, ContextBuilt))
        chosen = [i.ref.key for i in built.context.of_type("tool") if i.include_mode == "agent"]
        return chosen, [t.name for t in provider.requests[0].tools]

    chosen, offered = tools_for("Users report the checkout page crashes; please triage this bug report")
    assert chosen == ["tool:workflows/bug-triage"] and "workflows__bug-triage" in offered
    chosen, offered = tools_for("What is the capital of Portugal?")
    assert chosen == [] and "workflows__bug-triage" not in offered
