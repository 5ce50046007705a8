"""An attached MCP resource kept current by a subscription: the next message uses the new text,
and the item says it changed. Against server-everything."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.attached_updates import subscribe
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.mcp import McpManager
from agent_core.providers.retry import stream_with_retries
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.tools.runtime import NoTools
from tests.support.mcp_servers import npm_server, require_node_modules

pytestmark = pytest.mark.anyio

DYNAMIC = "demo://resource/dynamic/text/1"  # its text carries the time it was read, to the second


async def no_sleep(seconds: float) -> None:
    return None


def sent_text(provider: ScriptedProvider, request: int) -> str:
    return "\n".join(message.content or "" for message in provider.requests[request].messages)


def new_session(tmp_path: Path, provider: ScriptedProvider, tools: object) -> ChatSession:
    root = tmp_path / "agent"
    create_agent(root)
    return ChatSession.create(
        load_agent(root),
        ChatStore(tmp_path / "chats.sqlite3"),
        ChatServices(
            resolve_provider=lambda model: (provider, "x"),
            tools=tools,  # type: ignore[arg-type]
            streamer=functools.partial(stream_with_retries, sleep=no_sleep),
        ),
    )


async def test_the_next_message_uses_the_text_the_server_updated(tmp_path: Path) -> None:
    everything = npm_server(require_node_modules(), "server-everything", "stdio")
    provider = ScriptedProvider()
    provider.enqueue_reply("First.")
    provider.enqueue_reply("Second.")
    async with McpManager({"everything": everything}) as manager:
        session = new_session(tmp_path, provider, manager)
        seen = await subscribe(manager, "everything", DYNAMIC)
        assert seen == 0
        first = await manager.read_resource("everything", DYNAMIC)
        ref = session.attach_resource("everything", DYNAMIC, first.text, "Dynamic text", seen_version=seen)
        _ = [event async for event in session.send("What does it say?")]
        assert first.text in sent_text(provider, 0)
        assert session.attached_resources()[ref].description == "Dynamic text"

        await manager.call_tool("everything", "toggle-subscriber-updates", {})
        # The first update comes at once, the next 5 s later: by then the text's time has changed.
        async with asyncio.timeout(15):
            while (manager.resource_version("everything", DYNAMIC) or 0) < 2:
                await asyncio.sleep(0.05)
        await manager.call_tool("everything", "toggle-subscriber-updates", {})
        _ = [event async for event in session.send("And now?")]
        now = session.attached_resources()[ref]
        assert now.text != first.text
        sent = sent_text(provider, 1)
        assert now.text in sent and first.text not in sent
        assert now.description == "Changed by the server once since attached · Dynamic text"


async def test_without_subscriptions_an_attached_resource_stays_as_it_read(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("Fine.")
    session = new_session(tmp_path, provider, NoTools())
    assert await subscribe(NoTools(), "everything", DYNAMIC) is None
    ref = session.attach_resource("everything", DYNAMIC, "as read", "Dynamic text")
    _ = [event async for event in session.send("Hi")]
    assert session.attached_resources()[ref].text == "as read"
