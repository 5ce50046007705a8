"""A sub-agent whose model cannot choose tools is routed only among the tools its file gives it:
a tool outside its ``tools:`` is never routed to nor run, however well the task matches it (real
MiniLM routes; scripted models)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.context.selection import ContextSelector
from agent_core.providers.base import ToolCalling
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from tests.support.chat_tools import PythonTools, Tool
from tests.support.delegations import delegation_runner_with

pytestmark = pytest.mark.slow  # the real MiniLM model

TOOLS = [
    Tool(
        "workspace", "list_files", "List files and folders in the workspace folder", permission_required=False
    ),
    Tool("workspace", "current_time", "The current date and time", permission_required=False),
]


class RoutedScripted(ScriptedProvider):
    def tool_calling(self, model_id: str) -> ToolCalling:
        return "routed"


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    shared = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield shared
    shared.indexer.close()


@pytest.mark.parametrize(
    ("tools_line", "routed"),
    [("tools: [workspace.current_time]", None), ("tools: [workspace.list_files]", "workspace__list_files")],
)
def test_a_routed_sub_agent_is_routed_only_to_a_tool_its_file_gives_it(
    tmp_path: Path, selector: ContextSelector, tools_line: str, routed: str | None
) -> None:
    root = create_agent(tmp_path / "agent").root
    (root / "subagents").mkdir()
    (root / "subagents" / "lister.md").write_text(
        f"---\nname: lister\ndescription: Lists things\n{tools_line}\n---\nYou list things.\n",
        encoding="utf-8",
    )
    ran: list[str] = []
    tools = PythonTools(
        TOOLS, {"list_files": lambda: ran.append("list_files") or "notes.md", "current_time": lambda: "noon"}
    )
    provider = RoutedScripted()
    if routed:
        provider.enqueue_tool_call(routed, {})
    provider.enqueue_reply("Done.")
    store = ChatStore(tmp_path / "chats.sqlite3")
    try:
        run = delegation_runner_with(
            load_agent(root), store, provider, tools, "list the files in my folder", selector
        )
        delegation = asyncio.run(asyncio.wait_for(run("lister"), 60))
    finally:
        store.close()
    assert not delegation.stopped_by, delegation.note
    [first, *_] = provider.requests
    assert first.call_tool == routed
    assert ran == (["list_files"] if routed else [])
    assert [t.name for t in first.tools] == ([routed] if routed else [])
