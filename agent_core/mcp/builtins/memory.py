"""The ``memory`` built-in: lets a model that calls tools remember, search and forget long-term
memories. What it remembers is a *proposal* (saved for good only when the user accepts it, or at
once with ``memory.autoAccept``), attributed to the assistant, never to the user; the user also
approves each call (``permissionRequired`` defaults to true)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from agent_core import __version__
from agent_core.errors import ContextDeskError
from agent_core.mcp.builtins import BuiltinContext, OptionValue
from agent_core.memory.book import MemoryBook, MemoryDraft
from agent_core.memory.recall import recall
from agent_core.memory.records import Provenance

__all__ = ["build_memory_server"]

SEARCH_RESULTS = 8


def build_memory_server(context: BuiltinContext, options: Mapping[str, OptionValue]) -> MCPServer:
    server = MCPServer(
        "contextdesk-memory",
        version=__version__,
        instructions="Long-term memories about the user. Remember only what the user said about themselves.",
    )

    async def book() -> MemoryBook:
        if context.memories is None:
            raise ToolError("Memories are not available here (no memory store is open).")
        return await asyncio.to_thread(context.memories)

    @server.tool(
        description="Propose a long-term memory of a fact the USER stated about themselves or their work "
        "(not your own suggestions). kind: fact, preference, person, project or event; importance 1-5."
    )
    async def remember(text: str, kind: str = "fact", importance: int = 3) -> str:
        memories = await book()
        status: Literal["active", "proposed"] = "active" if memories.config.auto_accept else "proposed"
        draft = MemoryDraft(
            text,
            kind=kind,
            importance=importance,
            scope=memories.config.default_scope,
            provenance=Provenance(speaker="assistant", quote=text),
        )
        try:
            outcome = await asyncio.to_thread(
                memories.add, draft, "model", status=status, on_conflict="propose"
            )
        except ContextDeskError as error:
            raise ToolError(str(error)) from error
        if outcome.action == "blocked":
            raise ToolError(
                f"Not saved: {'; '.join(outcome.warnings)}. Sensitive data is never saved by a model."
            )
        memory = outcome.memory
        assert memory is not None
        if outcome.action == "merged":
            return f"Already remembered as {memory.id}: {memory.text}"
        waits = " It waits for the user to accept it." if memory.status == "proposed" else ""
        return f"Saved as {memory.status} memory {memory.id}: {memory.text}.{waits}"

    @server.tool(description="Search the long-term memories; returns the best matches with their ids.")
    async def search(query: str) -> str:
        memories = await book()

        def run() -> str:
            vector = memories.embedder.embed([query])[0]
            found = recall(
                memories.index,
                query,
                vector,
                memories.config.model_copy(update={"max_recalled": SEARCH_RESULTS, "min_relevance": 0.2}),
                session_id=None,
            )
            lines = [f"{r.memory.id}: {r.memory.text} ({r.reason})" for r in found.recalled]
            return "\n".join(lines) if lines else "No memory matches."

        return await asyncio.to_thread(run)

    @server.tool(description="Forget one long-term memory by its id (the user can restore it later).")
    async def forget(memory_id: str) -> str:
        memories = await book()
        try:
            memory = await asyncio.to_thread(memories.forget, memory_id, "model")
        except ContextDeskError as error:
            raise ToolError(str(error)) from error
        return f"Forgotten {memory.id}: {memory.text}"

    return server
