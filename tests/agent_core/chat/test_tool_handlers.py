"""The seam through which features plug into a chat from the side: a tool handler for a server
the chat runs itself, and a command typed in place of a message. The feature here is the test's
own (``helpers``, ``/echo``): the chat knows only the two shapes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import (
    ChatEvent,
    ReplyFinished,
    ToolCallFinished,
    ToolCallStarted,
    TurnSaved,
    UserMessageSaved,
)
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.chat.tool_calls import finished
from agent_core.chat.tool_handlers import MessageTurn, ToolCallEvent
from agent_core.context.selection import ContextSelector
from agent_core.errors import ContextDeskError
from agent_core.providers.base import ToolCall, ToolCalling
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.tools.runtime import ToolOutcome
from tests.support.chat_tools import Tool

WAIT = 10.0
ASK = Tool("helpers", "ask", "Ask a helper a question", permission_required=False)


@dataclass
class Reached:
    """One call as it reached the handler."""

    call_id: str
    tool: str
    turn: MessageTurn
    reply_id: int | None


@dataclass
class Helpers:
    """The handler of one chat for the ``helpers`` server. Side by side, each call waits (bounded)
    until every call of its turn has started: run one after another, the first would time out."""

    side_by_side: bool
    expected_together: int
    reached: list[Reached] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    running: dict[str, asyncio.Event] = field(default_factory=dict)
    most_at_once: int = 0
    all_started: asyncio.Event = field(default_factory=asyncio.Event)
    server: str = "helpers"

    async def run(
        self, call: ToolCall, tool: str, turn: MessageTurn, reply_id: int | None
    ) -> AsyncIterator[ToolCallEvent]:
        self.reached.append(Reached(call.id, tool, turn, reply_id))
        if len(self.reached) >= self.expected_together:
            self.all_started.set()
        stop = self.running[call.id] = asyncio.Event()
        self.most_at_once = max(self.most_at_once, len(self.running))
        yield ToolCallStarted(call.id, self.server, tool, call.arguments)
        result = f"answered {call.arguments.get('q', '')}"
        if stop.is_set():
            result = "stopped by the user"
        elif self.side_by_side:
            try:
                await asyncio.wait_for(self.all_started.wait(), WAIT)
            except TimeoutError:
                result = "ran alone"
        del self.running[call.id]
        yield finished(call, self.server, tool, result, is_error=False, elapsed=0.0)

    def cancel(self, call_id: str) -> bool:
        self.cancelled.append(call_id)
        if call_id not in self.running:
            return False
        self.running[call_id].set()
        return True


@dataclass
class HelpersFeature:
    """A ToolHandlerFactory: makes the ``helpers`` handler of each chat, keeping them to look at."""

    side_by_side: bool = False
    expected_together: int = 1
    made: list[Helpers] = field(default_factory=list)

    def __call__(self, session: ChatSession) -> Helpers:
        self.made.append(Helpers(self.side_by_side, self.expected_together))
        return self.made[-1]


@dataclass
class Echo:
    """A MessageCommand: ``/echo TEXT`` is answered with TEXT, by the feature, not the model."""

    ran: list[str] = field(default_factory=list)

    def matches(self, text: str) -> bool:
        return text.startswith("/echo ")

    async def run(self, session: ChatSession, text: str) -> AsyncGenerator[ChatEvent, None]:
        self.ran.append(text)
        yield UserMessageSaved(session.store.add_message(session.id, "user", text))
        yield ReplyFinished(session.store.add_message(session.id, "assistant", text.removeprefix("/echo ")))

    word = "/echo"
    summary = "say the rest of the message back"

    @property
    def not_regenerated(self) -> str:
        return "an /echo is not answered again: type it again to repeat it"


class HelperTools:
    """The tool runtime as a workspace gives it: the helpers' tools listed beside the MCP ones,
    and refused as plain tool calls (they run through the chat's handler)."""

    def tools(self) -> Sequence[Tool]:
        return [ASK]

    async def call_tool(self, server: str, tool: str, arguments: Mapping[str, Any]) -> ToolOutcome:
        raise LookupError(f"the helper {tool} runs through a chat, not as a plain tool")


class RoutedScripted(ScriptedProvider):
    def tool_calling(self, model_id: str) -> ToolCalling:
        return "routed"


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    return load_agent(create_agent(tmp_path / "agent").root)


def chat(
    agent: Agent,
    tmp_path: Path,
    provider: ScriptedProvider,
    feature: HelpersFeature | None = None,
    command: Echo | None = None,
    selector: ContextSelector | None = None,
) -> ChatSession:
    services = ChatServices(
        resolve_provider=lambda model: (provider, "x"),
        selector=selector,
        tools=HelperTools(),
        tool_handlers=(feature,) if feature is not None else (),
        commands=(command,) if command is not None else (),
    )
    return ChatSession.create(agent, ChatStore(tmp_path / "chats.sqlite3"), services)


def collect(events: AsyncIterator[ChatEvent]) -> list[ChatEvent]:
    async def run() -> list[ChatEvent]:
        return [event async for event in events]

    return asyncio.run(run())


def results(events: list[ChatEvent]) -> dict[str, str]:
    return {e.record.id: e.record.result for e in events if isinstance(e, ToolCallFinished)}


def test_a_call_to_the_handlers_server_reaches_the_handler_with_its_turn_and_reply(
    agent: Agent, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    provider.enqueue_tool_call("helpers__ask", {"q": "why"}, id="c1")
    provider.enqueue_reply("The helper answered.")
    feature = HelpersFeature()
    session = chat(agent, tmp_path, provider, feature)
    events = collect(session.send("ask the helper why"))

    [handler] = feature.made
    assert session.tool_handlers == {"helpers": handler}
    [reached] = handler.reached
    turn_message = next(e.message for e in events if isinstance(e, TurnSaved))
    assert (reached.call_id, reached.tool, reached.reply_id) == ("c1", "ask", turn_message.id)
    assert (reached.turn.text, reached.turn.routed) == ("ask the helper why", False)
    assert results(events) == {"c1": "answered why"}
    assert provider.requests[1].messages[-1].content == "answered why"  # the model read the result
    final = events[-1]
    assert isinstance(final, ReplyFinished) and final.message.content == "The helper answered."


def test_side_by_side_calls_of_one_turn_run_concurrently(agent: Agent, tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue_tool_calls([("helpers__ask", {"q": "a"}, "c1"), ("helpers__ask", {"q": "b"}, "c2")])
    provider.enqueue_reply("Both answered.")
    feature = HelpersFeature(side_by_side=True, expected_together=2)
    events = collect(chat(agent, tmp_path, provider, feature).send("ask both"))

    assert results(events) == {"c1": "answered a", "c2": "answered b"}  # neither ran alone
    assert feature.made[0].most_at_once == 2


def test_calls_of_a_handler_not_side_by_side_run_one_after_another(agent: Agent, tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue_tool_calls([("helpers__ask", {"q": "a"}, "c1"), ("helpers__ask", {"q": "b"}, "c2")])
    provider.enqueue_reply("Both answered.")
    feature = HelpersFeature(side_by_side=False)
    events = collect(chat(agent, tmp_path, provider, feature).send("ask both"))

    assert results(events) == {"c1": "answered a", "c2": "answered b"}
    assert feature.made[0].most_at_once == 1
    assert [e.call_id for e in events if isinstance(e, ToolCallStarted)] == ["c1", "c2"]


def test_cancelling_one_tool_call_reaches_its_handler_and_the_reply_goes_on(
    agent: Agent, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    provider.enqueue_tool_call("helpers__ask", {"q": "slow"}, id="c1")
    provider.enqueue_reply("Stopped, as you asked.")
    feature = HelpersFeature()
    session = chat(agent, tmp_path, provider, feature)

    async def run() -> tuple[list[ChatEvent], bool]:
        events: list[ChatEvent] = []
        answer = False
        async for event in session.send("ask slowly"):
            events.append(event)
            if isinstance(event, ToolCallStarted):
                answer = session.cancel_tool_call("c1")
        return events, answer

    events, cancelled = asyncio.run(run())
    assert cancelled and feature.made[0].cancelled == ["c1"]
    assert results(events) == {"c1": "stopped by the user"}
    final = events[-1]
    assert isinstance(final, ReplyFinished) and final.message.content == "Stopped, as you asked."
    assert not session.cancel_tool_call("c1")  # no longer running


def test_a_message_matching_a_command_goes_to_the_command_and_is_not_regenerated(
    agent: Agent, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    echo = Echo()
    session = chat(agent, tmp_path, provider, command=echo)
    events = collect(session.send("/echo hello"))

    assert echo.ran == ["/echo hello"] and provider.requests == []
    final = events[-1]
    assert isinstance(final, ReplyFinished) and final.message.content == "hello"
    assert [(m.role, m.content) for m in session.history()] == [
        ("user", "/echo hello"),
        ("assistant", "hello"),
    ]
    with pytest.raises(ContextDeskError, match="an /echo is not answered again: type it again to repeat it"):
        collect(session.regenerate())
    assert len(session.history()) == 2 and provider.requests == []


def test_other_messages_are_answered_by_the_model(agent: Agent, tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("Hello from the model.")
    echo = Echo()
    events = collect(chat(agent, tmp_path, provider, command=echo).send("say /echo hello"))
    assert echo.ran == [] and len(provider.requests) == 1
    final = events[-1]
    assert isinstance(final, ReplyFinished) and final.message.content == "Hello from the model."


def test_without_a_handler_for_its_server_a_call_is_an_error_result_not_a_crash(
    agent: Agent, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    provider.enqueue_tool_call("helpers__ask", {"q": "why"}, id="c1")
    provider.enqueue_reply("The helper is not available.")
    session = chat(agent, tmp_path, provider)  # the tool is listed, no feature handles it
    events = collect(session.send("ask the helper why"))

    [record] = [e.record for e in events if isinstance(e, ToolCallFinished)]
    assert record.is_error
    assert record.result == "The tool failed: the helper ask runs through a chat, not as a plain tool"
    assert not session.cancel_tool_call("c1")
    final = events[-1]
    assert isinstance(final, ReplyFinished) and final.message.status == "complete"


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    shared = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield shared
    shared.indexer.close()


@pytest.mark.slow  # the real MiniLM model routes the message to the tool
def test_a_routed_call_reaches_the_handler_marked_routed(
    agent: Agent, tmp_path: Path, selector: ContextSelector
) -> None:
    provider = RoutedScripted()
    provider.enqueue_tool_call("helpers__ask", {"q": "why"}, id="c1")
    provider.enqueue_reply("The helper answered.")
    feature = HelpersFeature()
    session = chat(agent, tmp_path, provider, feature, selector=selector)
    session.override_settings(selection={"tool_route_score": 0.0})
    collect(session.send("ask a helper a question"))

    [reached] = feature.made[0].reached
    assert (reached.turn.text, reached.turn.routed) == ("ask a helper a question", True)
    assert provider.requests[0].call_tool == "helpers__ask"
