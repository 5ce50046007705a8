"""The built-in ``memory`` MCP server, through the real MCP client: a model's memories are
proposals attributed to the assistant, searchable, forgettable; secrets are refused; every call
needs the user's approval by default."""

from __future__ import annotations

import pytest

from agent_core.agent.schema import InternalServerConfig
from agent_core.mcp import McpManager
from agent_core.memory.book import MemoryBook, MemoryDraft

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def test_remember_search_and_forget_through_mcp(book: MemoryBook) -> None:
    cat = book.add(MemoryDraft("my cat is called Miso")).memory
    servers = {"memory": InternalServerConfig(type="internal", tool="memory")}
    async with McpManager(servers, memories_source=lambda: book) as manager:
        tools = {tool.name: tool for tool in manager.tools()}
        assert set(tools) == {"remember", "search", "forget"}
        assert all(tool.permission_required for tool in tools.values())

        saved = await manager.call_tool(
            "memory", "remember", {"text": "the user prefers dark mode", "kind": "preference"}
        )
        assert not saved.is_error and "proposed" in saved.text and "waits for the user" in saved.text
        [proposal] = [m for m in book.find() if m.status == "proposed"]
        assert proposal.provenance.speaker == "assistant" and proposal.kind == "preference"

        found = await manager.call_tool("memory", "search", {"query": "what is the cat's name?"})
        assert cat.id in found.text and "Miso" in found.text

        secret = await manager.call_tool(
            "memory", "remember", {"text": "the api key is sk-proj-abcdefghijklmnopqrstuv"}
        )
        assert secret.is_error and "never saved by a model" in secret.text

        gone = await manager.call_tool("memory", "forget", {"memory_id": cat.id})
        assert not gone.is_error and book.get(cat.id).status == "forgotten"
        unknown = await manager.call_tool("memory", "forget", {"memory_id": "m-nope"})
        assert unknown.is_error and "memory list" in unknown.text


async def test_without_a_memory_store_the_tools_say_so() -> None:
    servers = {"memory": InternalServerConfig(type="internal", tool="memory")}
    async with McpManager(servers) as manager:
        result = await manager.call_tool("memory", "search", {"query": "anything"})
        assert result.is_error and "not available" in result.text
