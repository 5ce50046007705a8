"""The model's turns for one message, run as a unit: ReplyLoop on a real SQLite chat, a scripted
model and tools backed by plain functions."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.agent.schema import ToolPermissionPolicy
from agent_core.chat.chat_settings import ChatSettings
from agent_core.chat.events import (
    ChatEvent,
    ReplyDelta,
    ReplyFinished,
    RequestSent,
    ToolCallFinished,
    TurnSaved,
)
from agent_core.chat.reply_loop import ReplyLoop, ReplyRequest
from agent_core.chat.resolved_model import ModelResolver
from agent_core.chat.tool_calls import ToolCaller
from agent_core.context.items import ItemRef, RequestContext, RequestItem, SelectionRun
from agent_core.errors import ProviderError
from agent_core.providers.base import ChatRequest, Provider, StreamEvent
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chat_state import ChatOverrides
from agent_core.store.chats import ChatStore
from tests.support.chat_tools import PythonTools, Tool

WAIT = 10.0
CLOCK = Tool("clock", "now", "Current time", permission_required=False)
CLOCK_REF = ItemRef("tool", "now", "clock")


@dataclass
class Chat:
    loop: ReplyLoop
    store: ChatStore
    session_id: str
    provider: ScriptedProvider
    tools: PythonTools

    def request(self, text: str) -> ReplyRequest:
        user = self.store.add_message(self.session_id, "user", text)
        context = RequestContext(
            items=(RequestItem(ItemRef("rule", "clear-answers"), "always"), RequestItem(CLOCK_REF, "always")),
            model="scripted:x",
            selection=SelectionRun(top_k=20, top_n=5, include_score=0.7),
        )
        history = [m for m in self.store.messages(self.session_id) if m.id < user.id]
        return ReplyRequest(text, history, context, {CLOCK_REF: CLOCK}, user.id)

    def statuses(self) -> list[tuple[str, str]]:
        return [(m.role, m.status) for m in self.store.messages(self.session_id)]


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    return load_agent(create_agent(tmp_path / "agent").root)


def make_chat(agent: Agent, tmp_path: Path, **chat: Any) -> Chat:
    provider = ScriptedProvider()
    store = ChatStore(tmp_path / "chats.sqlite3")
    session = store.create_session(agent_path=str(agent.root))
    tools = PythonTools([CLOCK], {"now": lambda: "12:00"})

    def stream(provider: Provider, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        return provider.stream(request)

    settings = ChatSettings.of(agent.config, ChatOverrides(chat={"model": "scripted:x", **chat}))
    caller = ToolCaller(
        tools=tools, policy=ToolPermissionPolicy.TOOL, allowed_for_chat=tuple, allow_for_chat=lambda ref: None
    )
    loop = ReplyLoop(
        agent=agent,
        store=store,
        session_id=session.id,
        models=ModelResolver(lambda ref: (provider, "x")),
        settings=settings,
        streamer=stream,
        tool_caller=caller,
        attached=dict,
    )
    return Chat(loop, store, session.id, provider, tools)


def run(chat: Chat, request: ReplyRequest) -> list[ChatEvent]:
    async def collect() -> list[ChatEvent]:
        return [event async for event in chat.loop.run(request)]

    return asyncio.run(collect())


def test_a_reply_is_streamed_and_saved_with_the_context_it_used(agent: Agent, tmp_path: Path) -> None:
    chat = make_chat(agent, tmp_path)
    chat.provider.enqueue_reply("It is a fine day.")
    request = chat.request("hello")
    events = run(chat, request)

    sent = next(e for e in events if isinstance(e, RequestSent))
    assert sent.message.status == "streaming" and sent.message.request_context is not None
    assert "".join(e.text for e in events if isinstance(e, ReplyDelta)) == "It is a fine day."
    final = events[-1]
    assert isinstance(final, ReplyFinished) and final.message.status == "complete"
    [saved] = [m for m in chat.store.messages(chat.session_id) if m.role == "assistant"]
    assert saved.id == final.message.id and saved.content == "It is a fine day."
    context = saved.request_context
    assert context is not None and context.items == request.context.items
    assert context.manifest is not None and context.manifest.total_tokens > 0
    assert context.usage.output_tokens == 5  # the scripted model's count of what it wrote
    assert chat.store.sent_request(saved.id) is not None  # kept for "Show exact request"
    [sent_request] = chat.provider.requests
    assert sent_request.messages[-1].content == "hello"
    assert [t.name for t in sent_request.tools] == ["clock__now"]


def test_a_tool_call_turn_then_an_answer(agent: Agent, tmp_path: Path) -> None:
    chat = make_chat(agent, tmp_path)
    chat.provider.enqueue_tool_call("clock__now", {}, id="c1")
    chat.provider.enqueue_reply("It is noon.")
    events = run(chat, chat.request("what time is it?"))

    assert [type(e).__name__ for e in events if not isinstance(e, ReplyDelta)] == [
        "RequestSent",
        "ToolCallStarted",
        "ToolCallFinished",
        "TurnSaved",
        "RequestSent",
        "ReplyFinished",
    ]
    finished = next(e for e in events if isinstance(e, ToolCallFinished))
    assert finished.record.result == "12:00" and not finished.record.is_error
    assert chat.tools.calls == [("clock", "now", {})]
    turn = next(e for e in events if isinstance(e, TurnSaved)).message
    assert turn.status == "complete" and [c.result for c in turn.tool_calls] == ["12:00"]
    # the second turn sends the call and its result back to the model
    second = chat.provider.requests[1].messages
    assert [m.role for m in second[-2:]] == ["assistant", "tool"] and second[-1].content == "12:00"
    assert chat.statuses() == [("user", "complete"), ("assistant", "complete"), ("assistant", "complete")]
    assert [m.content for m in chat.store.messages(chat.session_id)][-1] == "It is noon."


def test_reaching_max_chat_turns_ends_with_a_clear_error(agent: Agent, tmp_path: Path) -> None:
    chat = make_chat(agent, tmp_path, max_chat_turns=2)
    chat.provider.enqueue_tool_call("clock__now", {}, id="c1")
    chat.provider.enqueue_tool_call("clock__now", {}, id="c2")
    events = run(chat, chat.request("loop forever"))

    final = events[-1]
    assert isinstance(final, ReplyFinished) and final.message.status == "error"
    assert final.message.error is not None
    assert final.message.error.startswith("Stopped after 2 model turns (the chat's maxChatTurns).")
    assert "raise maxChatTurns in the chat settings" in final.message.error
    assert len(chat.provider.requests) == 2 and len(chat.tools.calls) == 2
    assert chat.statuses() == [
        ("user", "complete"),
        ("assistant", "complete"),
        ("assistant", "complete"),
        ("error", "error"),
    ]


def test_a_provider_error_before_any_text_leaves_an_error_reply(agent: Agent, tmp_path: Path) -> None:
    chat = make_chat(agent, tmp_path)
    chat.provider.enqueue_error(ProviderError("the server refused the key; check the API key"))
    final = run(chat, chat.request("hi"))[-1]
    assert isinstance(final, ReplyFinished) and final.message.status == "error"
    assert final.message.error == "the server refused the key; check the API key"
    assert chat.statuses() == [("user", "complete"), ("assistant", "error")]


def test_a_provider_error_mid_reply_keeps_the_text_as_partial(agent: Agent, tmp_path: Path) -> None:
    chat = make_chat(agent, tmp_path)
    chat.provider.enqueue_tool_call("clock__now", {}, id="c1")
    chat.provider.enqueue_error(ProviderError("the connection dropped; try again"), chunks_before=["It is"])
    final = run(chat, chat.request("what time is it?"))[-1]
    assert isinstance(final, ReplyFinished) and final.message.status == "partial"
    assert final.message.content == "It is" and final.message.request_context is not None
    assert final.message.request_context.usage.estimated  # counted, as the provider never said
    assert chat.statuses() == [("user", "complete"), ("assistant", "complete"), ("assistant", "partial")]


def test_a_cancelled_reply_is_saved_as_cancelled(agent: Agent, tmp_path: Path) -> None:
    chat = make_chat(agent, tmp_path)
    never = asyncio.Event()

    async def scenario() -> None:
        chat.provider.enqueue_reply(chunks=["Half", never])
        first_text = asyncio.Event()

        async def answer() -> None:
            async for event in chat.loop.run(chat.request("hi")):
                if isinstance(event, ReplyDelta):
                    first_text.set()

        task = asyncio.create_task(answer())
        await asyncio.wait_for(first_text.wait(), WAIT)
        task.cancel()
        await asyncio.wait({task}, timeout=WAIT)
        assert task.cancelled()

    asyncio.run(scenario())
    [reply] = [m for m in chat.store.messages(chat.session_id) if m.role == "assistant"]
    assert (reply.status, reply.content) == ("cancelled", "Half")
