"""The chat's seam for kinds of items it carries (``chat/item_kinds.py``) is generic: a kind that
is not a skill, registered through the ``chat_item_kinds`` registry as a plug-in would be, adds
its blocks to the prompt and keeps what a tool call pulled in, with the chat knowing nothing of it.

The probe kind below pulls a reference in when the model reads it with the real ``references``
built-in server; the model is scripted at the provider boundary. It acts only for its own agent
and reference, so the other tests of this process never see it.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.schema import SelectionConfig
from agent_core.budget.counting import TokenCounter
from agent_core.budget.fitting import Block
from agent_core.chat.events import ChatEvent, ItemPulled, ReplyFinished
from agent_core.chat.item_kinds import CHAT_ITEM_KINDS, ChatItemKind
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.items import ItemRef, RequestContext, SessionItem
from agent_core.context.sources import ContextRequest
from agent_core.mcp import McpManager
from agent_core.providers.base import ToolCalling
from agent_core.providers.retry import stream_with_retries
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore, StoredMessage
from tests.support.agent_files import write

pytestmark = pytest.mark.anyio

PROBE_AGENT = "kind-probe"
NOTES = ItemRef("reference", "probe-refund-policy")
STANDING = "<probe-standing>Answer in the customer's language.</probe-standing>"
KEPT_REASON = "kept by the probe since the model read it"
POINTER = "The probe's reference is in the system message while it stays in the chat."
READ = "refs__read_reference"


@dataclass(frozen=True)
class ProbeKind(ChatItemKind):
    """A kind of item only this test knows: a standing block in the system message, an echo of the
    message, and a reference the ``references`` server's read pulls in and keeps."""

    def disclosed(
        self,
        context: RequestContext,
        request: ContextRequest,
        selection: SelectionConfig,
        tool_calling: ToolCalling,
    ) -> RequestContext:
        kept = {item.ref for item in request.chat_items if item.loaded_at is not None}
        items = tuple(
            replace(i, reason=KEPT_REASON) if i.ref == NOTES and i.ref in kept else i for i in context.items
        )
        return replace(context, items=items)

    def system_blocks(self, agent: Agent, context: RequestContext) -> list[Block]:
        return [Block("framing", STANDING)] if agent.config.name == PROBE_AGENT else []

    def message_blocks(
        self, agent: Agent, context: RequestContext, message: str, max_tokens: int, counter: TokenCounter
    ) -> list[Block]:
        if agent.config.name != PROBE_AGENT:
            return []
        return [Block("reference", f"<probe-echo>{message}</probe-echo>", "probe-echo")]

    def pulled(
        self, agent: Agent, server: str, tool: str, arguments: Mapping[str, Any], *, failed: bool
    ) -> ItemRef | None:
        wanted = (server, tool, arguments.get("name")) == ("refs", "read_reference", NOTES.name)
        return NOTES if wanted and not failed and agent.config.name == PROBE_AGENT else None

    def keeps_pulled(self, ref: ItemRef) -> bool:
        return ref == NOTES

    def history_sent(
        self, agent: Agent, history: Sequence[StoredMessage], chat_items: Sequence[SessionItem]
    ) -> list[StoredMessage]:
        if all(item.ref != NOTES for item in chat_items):
            return list(history)
        return [
            replace(
                message,
                tool_calls=tuple(
                    replace(record, result=POINTER) if record.tool == "read_reference" else record
                    for record in message.tool_calls
                ),
            )
            for message in history
        ]


@pytest.fixture(autouse=True)
def probe_registered() -> None:
    CHAT_ITEM_KINDS.register("test-probe", ProbeKind())  # the same value again: registered once


async def no_sleep(seconds: float) -> None:
    return None


def probe_agent(root: Path, *, with_notes: bool = True) -> Agent:
    write(
        root / "agent.yaml",
        f"name: {PROBE_AGENT}\nchat:\n  toolPermission: allow\ncontext:\n  keepRecentTurns: 1\n"
        "mcpServers:\n  refs:\n    type: internal\n    tool: references\n"
        "    toolDefaults: {include: always}\n",
    )
    write(
        root / "references" / (f"{NOTES.name}.md" if with_notes else "other.md"),
        "---\ndescription: When customers get their money back\ninclude: agent\n---\n"
        "Refunds within 30 days of purchase, to the original card.\n",
    )
    return load_agent(root)


@asynccontextmanager
async def chat(agent: Agent, store: ChatStore, provider: ScriptedProvider) -> AsyncIterator[ChatSession]:
    async with McpManager(agent.config.mcp_servers, references_source=lambda: agent.references) as tools:
        services = ChatServices(
            resolve_provider=lambda model: (provider, "x"),
            tools=tools,
            streamer=functools.partial(stream_with_retries, sleep=no_sleep),
        )
        yield ChatSession.create(agent, store, services)


async def send(session: ChatSession, text: str) -> list[ChatEvent]:
    return [event async for event in session.send(text)]


def final_context(events: list[ChatEvent]) -> RequestContext:
    finished = next(e for e in events if isinstance(e, ReplyFinished))
    assert finished.message.request_context is not None
    return finished.message.request_context


def sent_text(provider: ScriptedProvider, request: int) -> str:
    return "\n".join(m.content for m in provider.requests[request].messages)


async def test_a_registered_kind_adds_its_blocks_to_the_prompt_and_the_manifest(tmp_path: Path) -> None:
    agent = probe_agent(tmp_path / "agent")
    provider = ScriptedProvider()
    async with chat(agent, ChatStore(tmp_path / "db.sqlite3"), provider) as session:
        provider.enqueue_reply("Hola.")
        events = await send(session, "can I get a refund?")
    system, *_, message = provider.requests[0].messages
    assert STANDING in system.content and STANDING not in message.content
    assert "<probe-echo>can I get a refund?</probe-echo>" in message.content
    manifest = final_context(events).manifest
    assert manifest is not None
    assert [(p.kind, p.name) for p in manifest.parts if p.name == "probe-echo"] == [
        ("reference", "probe-echo")
    ]


async def test_a_kinds_pull_is_recorded_kept_in_the_chat_and_leaves_with_a_compaction(tmp_path: Path) -> None:
    agent = probe_agent(tmp_path / "agent")
    provider = ScriptedProvider()
    policy = "Refunds within 30 days of purchase"
    async with chat(agent, ChatStore(tmp_path / "db.sqlite3"), provider) as session:
        provider.enqueue_tool_call(READ, {"name": NOTES.name}, id="read-1")
        provider.enqueue_reply("Within 30 days.")
        events = await send(session, "how long do customers have for a refund?")
        assert [(e.ref, e.call_id) for e in events if isinstance(e, ItemPulled)] == [(NOTES, "read-1")]
        pulled = [i for i in final_context(events).items if i.ref == NOTES]
        assert [i.include_mode for i in pulled] == ["agent"]  # recorded as any pulled item is
        assert NOTES in {item.ref for item in session.items}

        provider.enqueue_reply("To the original card.")
        later = await send(session, "and where does the money go?")
        assert [i.reason for i in final_context(later).items if i.ref == NOTES] == [KEPT_REASON]
        assert policy in provider.requests[2].messages[0].content  # kept: in the system message
        [result] = [m for m in provider.requests[2].messages if m.tool_call_id == "read-1"]
        assert result.content == POINTER  # the kind's say on the history sent
        assert sent_text(provider, 2).count(policy) == 1

        provider.enqueue_reply("The user asked about refunds: 30 days, original card.")
        assert await session.compact() is not None  # covers the message the reference was read for
        assert NOTES not in {item.ref for item in session.items}
        provider.enqueue_reply("You're welcome.")
        await send(session, "thanks")
        assert policy not in sent_text(provider, -1)


async def test_a_failed_call_pulls_nothing(tmp_path: Path) -> None:
    agent = probe_agent(tmp_path / "agent", with_notes=False)
    provider = ScriptedProvider()
    async with chat(agent, ChatStore(tmp_path / "db.sqlite3"), provider) as session:
        provider.enqueue_tool_call(READ, {"name": NOTES.name}, id="read-1")
        provider.enqueue_reply("There is no such reference.")
        events = await send(session, "read the refund notes")
        assert not [e for e in events if isinstance(e, ItemPulled)]
        assert NOTES not in {item.ref for item in session.items}
