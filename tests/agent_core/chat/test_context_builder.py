"""The one place that builds a RequestContext: its sources, its exclusions, and sending and
what-if agreeing on it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_core.agent import IncludeMode, load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.items import DocumentItem
from agent_core.agent.scaffold import create_agent
from agent_core.agent.schema import SelectionConfig, ToolPermissionPolicy
from agent_core.chat.approvals import needs_approval
from agent_core.chat.context_builder import build_request_context
from agent_core.chat.events import ContextBuilt, ReplyFinished
from agent_core.chat.prompt import ToolBinding
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.items import ItemRef, ItemType, SessionItem
from agent_core.context.selection import Candidate, ContextSelector, document_candidate
from agent_core.context.sources import ContextRequest, ContextSource, default_sources
from agent_core.providers.base import ToolCalling, ToolSpec
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from tests.support.chat_tools import PythonTools, Tool


class ToollessModel(ScriptedProvider):
    """A provider whose model cannot call tools (as a local model configured so)."""

    def tool_calling(self, model_id: str) -> ToolCalling:
        return "none"


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    root = tmp_path / "agent"
    create_agent(root)
    (root / "rules" / "sql-style.md").write_text(
        "---\ninclude: agent\ndescription: How to write SQL queries\n---\nUppercase SQL keywords.\n"
    )
    (root / "references" / "schema.md").write_text(
        "---\ninclude: manual\ndescription: The orders table\n---\norders(id, total, placed_at)\n"
    )
    return load_agent(root)


TOOLS = [
    Tool("db", "run_query", "Run a SQL query", IncludeMode.ALWAYS),
    Tool("mail", "send", "Send an e-mail", IncludeMode.AGENT),
]


def request(agent: Agent, chat_items: tuple[SessionItem, ...] = (), **changes: Any) -> ContextRequest:
    fields: dict[str, Any] = {
        "agent": agent,
        "message": "count the orders placed today",
        "previous_message": None,
        "chat_items": chat_items,
        "tools": TOOLS,
    }
    return ContextRequest(**{**fields, **changes})


def test_the_default_sources_offer_every_agent_mode_item_not_in_the_chat(agent: Agent) -> None:
    in_chat = (SessionItem(ItemRef("tool", "run_query", "db"), "always"),)
    offered = [c.ref for source in default_sources() for c in source.candidates(request(agent, in_chat))]
    assert ItemRef("rule", "sql-style") in offered
    assert ItemRef("tool", "send", "mail") in offered
    assert ItemRef("tool", "run_query", "db") not in offered  # already in the chat
    assert ItemRef("reference", "schema") not in offered  # manual: the user adds it, selection never does
    assert [s.item_type for s in default_sources()] == ["rule", "reference", "tool", "skill"]


def test_excluded_items_are_neither_kept_nor_offered(agent: Agent) -> None:
    in_chat = (SessionItem(ItemRef("reference", "schema"), "manual"),)
    excluded = frozenset({ItemRef("reference", "schema"), ItemRef("rule", "sql-style")})
    built = asyncio.run(
        build_request_context(
            request(agent, in_chat, excluded=excluded),
            selector=None,
            selection=SelectionConfig(),
            model_ref="scripted:x",
            tool_calling="native",
        )
    )
    assert ItemRef("reference", "schema") not in {i.ref for i in built.context.items}
    offered = [c.ref for s in default_sources() for c in s.candidates(request(agent, excluded=excluded))]
    assert ItemRef("rule", "sql-style") not in offered


def test_a_model_that_cannot_call_tools_gets_none_and_the_context_says_why(agent: Agent) -> None:
    in_chat = (SessionItem(ItemRef("tool", "run_query", "db"), "always"),)
    built = asyncio.run(
        build_request_context(
            request(agent, in_chat),
            selector=None,
            selection=SelectionConfig(),
            model_ref="local:tiny",
            tool_calling="none",
        )
    )
    assert built.context.of_type("tool") == [] and built.tools == {}
    assert built.context.notes.tools == "local:tiny cannot call tools, so none were offered"


def test_sending_and_what_if_build_the_same_context(agent: Agent, tmp_path: Path) -> None:
    provider = ToollessModel()
    provider.enqueue_reply("42 orders.")
    session = ChatSession.create(
        agent,
        ChatStore(tmp_path / "chats.sqlite3"),
        ChatServices(resolve_provider=lambda m: (provider, "x"), tools=PythonTools(TOOLS)),
    )
    session.add_item(ItemRef("reference", "schema"))

    async def send() -> list[Any]:
        return [event async for event in session.send("count the orders placed today")]

    events = asyncio.run(send())
    sent = next(e.context for e in events if isinstance(e, ContextBuilt))
    reply = next(e.message for e in events if isinstance(e, ReplyFinished))
    replayed = asyncio.run(session.what_if(reply))
    assert replayed.items == sent.items
    assert replayed.notes == sent.notes and "cannot call tools" in sent.notes.tools
    assert replayed.manifest is not None and reply.request_context is not None
    assert replayed.manifest.total_tokens == reply.request_context.manifest.total_tokens  # type: ignore[union-attr]


@dataclass(frozen=True)
class TeamNotes:
    """A kind of item the app does not ship: notes kept outside the agent folder."""

    notes: tuple[DocumentItem, ...]
    item_type: ItemType = "reference"

    def candidates(self, request: ContextRequest) -> list[Candidate]:
        return [document_candidate(note) for note in self.notes]


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    real = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield real
    real.indexer.close()


@pytest.mark.slow
def test_a_new_kind_of_item_is_one_new_source(agent: Agent, selector: ContextSelector) -> None:
    note = DocumentItem(
        kind="reference",
        name="on-call-rota",
        description="Who is on call this week",
        text="This week Dana is on call for the payments service; next week Lee.",
        include=IncludeMode.AGENT,
    )
    sources: tuple[ContextSource, ...] = (*default_sources(), TeamNotes((note,)))
    built = asyncio.run(
        build_request_context(
            request(agent, message="who is on call for payments this week?", tools=()),
            selector=selector,
            selection=SelectionConfig(),
            model_ref="scripted:x",
            tool_calling="native",
            sources=sources,
        )
    )
    chosen = {i.ref: i for i in built.context.items if i.include_mode == "agent"}
    assert ItemRef("reference", "on-call-rota") in chosen
    assert (chosen[ItemRef("reference", "on-call-rota")].score or 0.0) > 0.3


@pytest.mark.parametrize(
    ("policy", "permission_required", "allowed", "asks"),
    [
        (ToolPermissionPolicy.TOOL, True, False, True),
        (ToolPermissionPolicy.TOOL, False, False, False),
        (ToolPermissionPolicy.TOOL, True, True, False),
        (ToolPermissionPolicy.ASK, False, False, True),
        (ToolPermissionPolicy.ASK, True, True, False),
        (ToolPermissionPolicy.ALLOW, True, False, False),
    ],
)
def test_approval_policy(
    policy: ToolPermissionPolicy, permission_required: bool, allowed: bool, asks: bool
) -> None:
    binding = ToolBinding(ToolSpec("db__run_query", "", {}), "db", "run_query", permission_required)
    allowed_tools = {ItemRef("tool", "run_query", "db")} if allowed else set()
    assert needs_approval(binding, policy, allowed_tools, every_call=False) is asks
