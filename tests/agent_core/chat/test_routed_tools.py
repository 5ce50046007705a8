"""Routed tool calling: models that cannot choose tools get at most the one tool a message asks for.

The default agent with its built-in workspace and references servers (real MCP), the real MiniLM
selector, and either a scripted provider that declares itself routed or the real offline model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import (
    ApprovalDecision,
    ApprovalRequest,
    ChatEvent,
    ContextBuilt,
    ReplyFinished,
    ToolCallFinished,
)
from agent_core.context.items import ItemRef
from agent_core.context.selection import ContextSelector
from agent_core.providers.base import Provider, ToolCalling
from agent_core.providers.pool import ProviderPool
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.workspace import Workspace
from indexer import EmbeddingBackend, Indexer, ModelLoadError
from tests.support.models import runnable_offline_model

pytestmark = pytest.mark.slow  # the real MiniLM model, and for some tests the real local model

LIST_FILES = ItemRef("tool", "list_files", "workspace")


class RoutedScripted(ScriptedProvider):
    """The scripted provider, declaring itself a model that cannot choose tools."""

    def tool_calling(self, model_id: str) -> ToolCalling:
        return "routed"


class OnePool(ProviderPool):
    def __init__(self, provider: Provider) -> None:
        self.provider = provider

    def resolve(self, model_ref: str) -> tuple[Provider, str]:
        return self.provider, "x"

    async def aclose(self) -> None:
        await self.provider.aclose()


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    shared = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield shared
    shared.indexer.close()


@pytest.fixture
def default_agent(tmp_path: Path) -> Agent:
    """The shipped default agent, its workspace folder a temporary one with two files."""
    documents = tmp_path / "Documents"
    documents.mkdir()
    (documents / "notes.md").write_text("# Notes\nBuy milk. Call the dentist on Tuesday.\n")
    (documents / "budget-2026.txt").write_text("Rent 1200\nFood 400\n")
    root = tmp_path / "agent"
    create_agent(root)
    config = root / "agent.yaml"
    config.write_text(config.read_text().replace("~/Documents", str(documents)))
    return load_agent(root)


async def converse(
    workspace: Workspace, messages: Sequence[str], decisions: Sequence[ApprovalDecision] = ()
) -> list[list[ChatEvent]]:
    """Each message's events, in one chat, after the MCP servers are up."""
    statuses = await workspace.start_tools()
    assert all(status.state == "ready" for status in statuses), statuses
    session = workspace.new_chat()
    answers = iter(decisions)
    replies: list[list[ChatEvent]] = []
    for text in messages:
        events: list[ChatEvent] = []
        async for event in session.send(text):
            events.append(event)
            if isinstance(event, ApprovalRequest):
                event.decide(next(answers))
        replies.append(events)
    return replies


def run(
    workspace: Workspace, messages: Sequence[str], decisions: Sequence[ApprovalDecision] = ()
) -> list[list[ChatEvent]]:
    async def scenario() -> list[list[ChatEvent]]:
        try:
            return await converse(workspace, messages, decisions)
        finally:
            await workspace.aclose()

    return asyncio.run(scenario())


def routed_workspace(
    agent: Agent, tmp_path: Path, selector: ContextSelector, provider: Provider
) -> Workspace:
    """A workspace whose every chat is answered by ``provider``."""
    return Workspace(
        agent, store=ChatStore(tmp_path / "db.sqlite3"), selector=selector, providers=OnePool(provider)
    )


def _session_of(events: Sequence[ChatEvent]) -> str:
    return next(e for e in events if isinstance(e, ReplyFinished)).message.session_id


def built(events: Sequence[ChatEvent]) -> ContextBuilt:
    return next(e for e in events if isinstance(e, ContextBuilt))


def test_a_message_asking_for_a_tool_gets_that_one_tool_and_the_next_turn_none(
    default_agent: Agent, tmp_path: Path, selector: ContextSelector
) -> None:
    provider = RoutedScripted()
    provider.enqueue_tool_call("workspace__list_files", {}, id="l1")
    provider.enqueue_reply("You have notes.md and budget-2026.txt.")
    provider.enqueue_reply("Hello! How can I help?")
    workspace = routed_workspace(default_agent, tmp_path, selector, provider)

    first, second = run(
        workspace, ["list the files in my documents folder", "hello"], [ApprovalDecision.ALLOW_ONCE]
    )

    call_request, answer_request, hello_request = provider.requests
    assert [spec.name for spec in call_request.tools] == ["workspace__list_files"]
    assert call_request.call_tool == "workspace__list_files"
    assert not answer_request.tools and answer_request.call_tool is None
    assert any("notes.md" in m.content for m in answer_request.messages if m.role == "tool")
    context = built(first).context
    tools = context.of_type("tool")
    assert [item.ref for item in tools] == [LIST_FILES]
    assert tools[0].include_mode == "always" and tools[0].score is not None and tools[0].score >= 0.5
    assert "picked workspace.list_files" in context.notes.tool_routing
    assert {miss.ref.name for miss in context.near_misses if miss.ref.type == "tool"} >= {"read_file"}
    approvals = [(e.server, e.tool) for e in first if isinstance(e, ApprovalRequest)]
    assert approvals == [("workspace", "list_files")]

    assert not hello_request.tools and hello_request.call_tool is None
    hello = built(second).context
    assert hello.of_type("tool") == []
    assert "none was called" in hello.notes.tool_routing


def test_every_tool_routing_left_out_is_listed_with_how_it_came_in_and_why(
    default_agent: Agent, tmp_path: Path, selector: ContextSelector
) -> None:
    provider = RoutedScripted()
    provider.enqueue_tool_call("workspace__list_files", {}, id="l1")
    provider.enqueue_reply("You have notes.md and budget-2026.txt.")
    provider.enqueue_reply("Hello! How can I help?")
    workspace = routed_workspace(default_agent, tmp_path, selector, provider)

    async def scenario() -> tuple[list[list[ChatEvent]], set[ItemRef]]:
        try:
            replies = await converse(
                workspace, ["list the files in my documents folder", "hello"], [ApprovalDecision.ALLOW_ONCE]
            )
            chat = workspace.open_chat(_session_of(replies[0]))
            return replies, {item.ref for item in chat.items if item.ref.type == "tool"}
        finally:
            await workspace.aclose()

    (listing, hello), chat_tools = asyncio.run(scenario())
    routed = built(listing).context
    misses = {miss.ref: miss for miss in routed.near_misses if miss.ref.type == "tool"}
    assert chat_tools - {LIST_FILES} <= misses.keys()  # every one, not only the best few
    for ref, miss in misses.items():
        how = "Always-on tool" if ref in chat_tools else "Selected tool"  # agent-mode ones were selected
        assert miss.reason.startswith(f"{how} routed out: "), miss
        if ref.server == "skills":  # the default agent's example skill: never a routed tool
            assert "gets the best skill's instructions inline" in miss.reason
        else:
            assert "only workspace.list_files, the best match, was sent" in miss.reason
    threshold = default_agent.config.selection.tool_route_score
    misses = {miss.ref: miss for miss in built(hello).context.near_misses if miss.ref.type == "tool"}
    assert chat_tools <= misses.keys()
    for miss in (miss for ref, miss in misses.items() if ref.server != "skills"):
        assert miss.needed == threshold and "no tool matched the message well enough" in miss.reason
        assert miss.score is None or miss.score < threshold


def test_the_route_score_setting_turns_routing_off(
    default_agent: Agent, tmp_path: Path, selector: ContextSelector
) -> None:
    provider = RoutedScripted()
    provider.enqueue_reply("I cannot look at files.")
    workspace = routed_workspace(default_agent, tmp_path, selector, provider)

    async def scenario() -> list[ChatEvent]:
        try:
            await workspace.start_tools()
            session = workspace.new_chat()
            session.override_settings(selection={"tool_route_score": 2.0})
            return [event async for event in session.send("list the files in my documents folder")]
        finally:
            await workspace.aclose()

    events = asyncio.run(scenario())
    assert not provider.requests[0].tools and provider.requests[0].call_tool is None
    assert "none was called" in built(events).context.notes.tool_routing


def test_what_if_routes_like_the_reply_did(
    default_agent: Agent, tmp_path: Path, selector: ContextSelector
) -> None:
    provider = RoutedScripted()
    provider.enqueue_tool_call("workspace__list_files", {}, id="l1")
    provider.enqueue_reply("Two files.")
    workspace = routed_workspace(default_agent, tmp_path, selector, provider)

    async def scenario() -> tuple[list[ItemRef], list[ItemRef]]:
        try:
            (events,) = await converse(
                workspace, ["list the files in my documents folder"], [ApprovalDecision.ALLOW_ONCE]
            )
            reply = next(e for e in events if isinstance(e, ReplyFinished)).message
            session = workspace.open_chat(reply.session_id)
            same = await session.what_if(reply)
            stricter = await session.what_if(reply, selection={"tool_route_score": 2.0})
            return [i.ref for i in same.of_type("tool")], [i.ref for i in stricter.of_type("tool")]
        finally:
            await workspace.aclose()

    same, stricter = asyncio.run(scenario())
    assert same == [LIST_FILES]
    assert stricter == []


def test_the_offline_model_calls_a_routed_tool_after_approval_and_answers_from_its_result(
    default_agent: Agent, tmp_path: Path, selector: ContextSelector
) -> None:
    runnable_offline_model()
    workspace = Workspace(default_agent, store=ChatStore(tmp_path / "db.sqlite3"), selector=selector)

    listing, greeting = run(
        workspace, ["list the files in my documents folder", "hi!"], [ApprovalDecision.ALLOW_FOR_CHAT]
    )

    approvals = [(e.server, e.tool) for e in listing if isinstance(e, ApprovalRequest)]
    assert approvals == [("workspace", "list_files")]
    finished = [e.record for e in listing if isinstance(e, ToolCallFinished)]
    assert len(finished) == 1 and not finished[0].is_error, finished
    assert "notes.md" in finished[0].result and finished[0].approval == "allowed_for_chat"
    final = listing[-1]
    assert isinstance(final, ReplyFinished) and final.message.status == "complete"
    # The bundled model shows the result as returned rather than restating it (and garbling it).
    assert "notes.md" in final.message.content and "budget-2026.txt" in final.message.content
    assert not any(isinstance(e, (ApprovalRequest, ToolCallFinished)) for e in greeting)
    assert isinstance(greeting[-1], ReplyFinished) and greeting[-1].message.status == "complete"


@pytest.mark.parametrize(
    ("message", "tool"),
    [
        ("what time is it?", "workspace__current_time"),
        ("read notes.md", "workspace__read_file"),
        ("search my files for 'dentist'", "workspace__search_files"),
        ("which references do you have?", "references__list_references"),
    ],
)
def test_plain_requests_are_routed_to_the_tool_they_ask_for(
    default_agent: Agent, tmp_path: Path, selector: ContextSelector, message: str, tool: str
) -> None:
    provider = RoutedScripted()
    provider.enqueue_tool_call(tool, {}, id="t1")
    provider.enqueue_reply("Done.")
    workspace = routed_workspace(default_agent, tmp_path, selector, provider)
    run(workspace, [message], [ApprovalDecision.ALLOW_ONCE])
    assert provider.requests[0].call_tool == tool


def test_a_broken_embedding_model_means_no_tool_is_called_and_the_chat_goes_on(
    default_agent: Agent, tmp_path: Path
) -> None:
    def broken_backend() -> EmbeddingBackend:
        raise ModelLoadError("the model file is damaged: reinstall ContextDesk")

    broken = ContextSelector(Indexer(backend_factory=broken_backend))
    provider = RoutedScripted()
    provider.enqueue_reply("I can only answer in words right now.")
    (events,) = run(routed_workspace(default_agent, tmp_path, broken, provider), ["what time is it?"])

    assert not provider.requests[0].tools and provider.requests[0].call_tool is None
    note = built(events).context.notes.tool_routing
    assert "could not be picked" in note and "reinstall ContextDesk" in note and "none was called" in note
    misses = [
        miss
        for miss in built(events).context.near_misses
        if miss.ref.type == "tool" and miss.ref.server != "skills"  # never routed: see above
    ]
    assert misses and all(miss.score is None and "picking a tool failed" in miss.reason for miss in misses)
    final = events[-1]
    assert isinstance(final, ReplyFinished) and final.message.status == "complete"


def test_a_question_a_reference_answers_gets_the_reference_not_a_guessed_read_reference_call(
    default_agent: Agent, tmp_path: Path, selector: ContextSelector
) -> None:
    # The welcome's reference example: the bundled model, routed to references.read_reference,
    # had to guess a name and wrote "... (see list_references)"; the reply was the tool's error.
    provider = RoutedScripted()
    provider.enqueue_reply("Create a Markdown file in the agent's rules folder.")
    workspace = routed_workspace(default_agent, tmp_path, selector, provider)

    (events,) = run(workspace, ["How do I add a rule to my agent?"])

    assert provider.requests[0].call_tool is None and not provider.requests[0].tools
    context = built(events).context
    assert ItemRef("reference", "using-contextdesk") in {item.ref for item in context.items}
    misses = {miss.ref: miss for miss in context.near_misses if miss.ref.type == "tool"}
    reader = misses[ItemRef("tool", "read_reference", "references")]
    assert "gets references through selection" in reader.reason
    assert not any(isinstance(e, ToolCallFinished) for e in events)
    final = events[-1]
    assert isinstance(final, ReplyFinished) and final.message.content.startswith("Create a Markdown file")
