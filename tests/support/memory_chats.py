"""A chat with memories on, answered by a scripted model: what the memory tests of several
modules share."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import MemoriesWritten
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.selection import ContextSelector
from agent_core.memory.service import MemoryService
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore

__all__ = ["chat_with", "written"]


def chat_with(
    tmp_path: Path, selector: ContextSelector, memory_yaml: str
) -> tuple[ChatSession, ScriptedProvider, MemoryService]:
    root = tmp_path / "agent"
    create_agent(root)
    (root / "agent.yaml").write_text((root / "agent.yaml").read_text() + memory_yaml)
    store = ChatStore(tmp_path / "chats.sqlite3")
    memories = MemoryService(store.path, selector)
    provider = ScriptedProvider()
    services = ChatServices(
        resolve_provider=lambda model: (provider, "demo"), selector=selector, memories=memories
    )
    return ChatSession.create(load_agent(root), store, services), provider, memories


def written(session: ChatSession, provider: ScriptedProvider, text: str) -> list[MemoriesWritten]:
    provider.enqueue_reply("ok")

    async def run() -> list[MemoriesWritten]:
        return [e async for e in session.send(text) if isinstance(e, MemoriesWritten)]

    return asyncio.run(asyncio.wait_for(run(), timeout=60))
