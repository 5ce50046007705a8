"""A 300-turn chat with large tool outputs stays inside the window, pairs intact, manifest exact."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.budget.counting import counter_for
from agent_core.chat.events import ReplyFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.providers.base import ChatRequest
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from tests.support.chat_tools import Outcome, Tool

TURNS = int(__import__("os").environ.get("CD_TURNS", "300"))
WINDOW = 4096
RESERVE = 256


LOG_TAIL = Tool(
    "logs",
    "tail",
    "Show the end of a log file",
    permission_required=False,
    input_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
)


class ChattyLogs:
    """A tool whose every answer is thousands of words long."""

    def __init__(self) -> None:
        self.random = random.Random(7)

    def tools(self) -> Sequence[Tool]:
        return [LOG_TAIL]

    async def call_tool(self, server: str, tool: str, arguments: Mapping[str, Any]) -> Outcome:
        words = [f"line{self.random.randint(0, 99999)}" for _ in range(1500 + self.random.randint(0, 3000))]
        return Outcome(" ".join(words), elapsed_seconds=0.001)


def check_request(request: ChatRequest, budget: int) -> None:
    counter = counter_for(ScriptedProvider(), "scripted", "x")
    sent = counter.messages(list(request.messages)) + sum(counter.tool(t) for t in request.tools)
    assert sent <= budget, f"{sent} tokens sent, budget {budget}"
    assert request.messages[0].role == "system" and request.messages[1].role == "user"
    called: set[str] = set()
    for message in request.messages:
        called |= {call.id for call in message.tool_calls}
        if message.role == "tool":
            assert message.tool_call_id in called, "orphan tool result sent"


def test_three_hundred_turns_with_large_tool_outputs_never_overflow(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    create_agent(root)
    agent = load_agent(root)
    provider = ScriptedProvider()
    for turn in range(TURNS):
        provider.enqueue_tool_call("logs__tail", {"n": turn})
        provider.enqueue_reply(f"Turn {turn}: the log looks fine.")
    store = ChatStore(tmp_path / "db.sqlite3")
    session = ChatSession.create(
        agent, store, ChatServices(resolve_provider=lambda m: (provider, "x"), tools=ChattyLogs())
    )
    session.override_settings(context={"window": WINDOW, "reply_reserve": RESERVE, "auto_compact": False})

    async def run() -> None:
        for turn in range(TURNS):
            events = [event async for event in session.send(f"check the logs, round {turn}")]
            final = events[-1]
            assert isinstance(final, ReplyFinished) and final.message.status == "complete", (
                final.message.error
            )

    asyncio.run(run())
    provider.assert_all_used()
    assert len(provider.requests) == 2 * TURNS
    for request in provider.requests:
        check_request(request, WINDOW - RESERVE)

    last = session.last_request_context()
    assert last is not None and last.manifest is not None
    manifest = last.manifest
    final_request = provider.requests[-1]
    counter = counter_for(provider, "scripted", "x")
    assert manifest.total_tokens == counter.messages(list(final_request.messages)) + sum(
        counter.tool(t) for t in final_request.tools
    )
    assert {a.kind for a in manifest.trimmed} >= {"history_dropped", "tool_result_cut"}
    # The full trace stays in the saved chat even though the model saw summaries.
    stored = store.messages(session.id)
    assert sum(len(call.result) for m in stored for call in m.tool_calls) > 300 * 10_000
