"""A skill the model loads stays in the chat: its body comes in every later request until a
compaction covers the message it was loaded for, or the user removes it. The chats run the real
``skills`` server in-process; the model is scripted at the provider boundary."""

from __future__ import annotations

import functools
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.chat.events import ChatEvent, ItemPulled, ReplyFinished, ToolCallFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.items import ItemRef, RequestContext
from agent_core.context.skill_disclosure import (
    ADDED_REASON,
    ALWAYS_REASON,
    LOADED_EARLIER_REASON,
    LOADED_NOW_REASON,
)
from agent_core.context.skill_framing import SKILLS_OPENING
from agent_core.context.skill_server import agent_servers
from agent_core.mcp import McpManager
from agent_core.providers.base import ChatRequest
from agent_core.providers.retry import stream_with_retries
from agent_core.providers.scripted import ScriptedProvider
from agent_core.skills_in_chat.loads import LOADED_RESULT
from agent_core.store.chats import ChatStore
from tests.support.agent_files import write
from tests.support.paths import FIXTURES

pytestmark = pytest.mark.anyio

SKILLS = FIXTURES / "skill_disclosure" / "skills"
FIX_CI = ItemRef("skill", "gh-fix-ci")
LOAD = "skills__load"


async def no_sleep(seconds: float) -> None:
    return None


def skilled_agent(root: Path, agent_yaml: str) -> Agent:
    write(root / "agent.yaml", agent_yaml)
    shutil.copytree(SKILLS, root / "skills")
    return load_agent(root)


@asynccontextmanager
async def chat(agent: Agent, store: ChatStore, provider: ScriptedProvider) -> AsyncIterator[ChatSession]:
    async with McpManager(agent_servers(agent), skills_source=lambda: agent.skills) as tools:
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


def skill_states(context: RequestContext) -> dict[str, tuple[str | None, str, str]]:
    return {i.ref.name: (i.skill_state, i.include_mode, i.reason) for i in context.of_type("skill")}


def body_sent(request: ChatRequest, agent: Agent, name: str) -> bool:
    return agent.skills[name].body.strip()[:150] in request.messages[0].content


AGENT_YAML = "name: skilled\ncontext:\n  keepRecentTurns: 1\n"


async def load_fix_ci(session: ChatSession, provider: ScriptedProvider) -> list[ChatEvent]:
    provider.enqueue_tool_call(LOAD, {"name": "gh-fix-ci"}, id="load-1")
    provider.enqueue_reply("I read the CI skill; let me look at the checks.")
    return await send(session, "The checks on my pull request are failing, fix CI")


async def test_a_loaded_skill_stays_in_later_requests_until_a_compaction_covers_it(tmp_path: Path) -> None:
    agent = skilled_agent(tmp_path / "agent", AGENT_YAML)
    provider = ScriptedProvider()
    async with chat(agent, ChatStore(tmp_path / "db.sqlite3"), provider) as session:
        events = await load_fix_ci(session, provider)
        [pulled] = [e for e in events if isinstance(e, ItemPulled)]
        assert pulled.ref == FIX_CI and pulled.call_id == "load-1"
        [loaded] = [e.record for e in events if isinstance(e, ToolCallFinished)]
        assert (loaded.server, loaded.tool, loaded.is_error) == ("skills", "load", False)
        assert loaded.result.startswith('<skill name="gh-fix-ci"')
        assert skill_states(final_context(events)) == {"gh-fix-ci": ("loaded", "agent", LOADED_NOW_REASON)}
        assert not body_sent(provider.requests[1], agent, "gh-fix-ci")  # its tool result holds it

        provider.enqueue_reply("The lint job fails on an unused import.")
        later = await send(session, "what did you find?")
        assert body_sent(provider.requests[2], agent, "gh-fix-ci")
        # Once in the system message; the earlier load's result points there instead of repeating it.
        [result] = [m for m in provider.requests[2].messages if m.tool_call_id == "load-1"]
        assert result.content == LOADED_RESULT.format(name="gh-fix-ci")
        sent = "\n".join(m.content for m in provider.requests[2].messages)
        assert sent.count(agent.skills["gh-fix-ci"].body.strip()[:150]) == 1
        assert SKILLS_OPENING in provider.requests[2].messages[0].content
        context = final_context(later)
        assert skill_states(context) == {"gh-fix-ci": ("loaded", "manual", LOADED_EARLIER_REASON)}
        assert context.manifest is not None
        assert [p.name for p in context.manifest.parts if p.kind == "skill"] == ["gh-fix-ci"]

        provider.enqueue_reply("The user asked to fix failing CI checks; the lint job failed.")
        assert FIX_CI in {item.ref for item in session.items}
        assert await session.compact() is not None  # covers the message the skill was loaded for
        assert FIX_CI not in {item.ref for item in session.items}
        provider.enqueue_reply("You're welcome.")
        after = await send(session, "thanks")
        assert not body_sent(provider.requests[-1], agent, "gh-fix-ci")
        assert "gh-fix-ci" not in skill_states(final_context(after))


async def test_the_user_removing_a_loaded_skill_takes_its_body_out(tmp_path: Path) -> None:
    agent = skilled_agent(tmp_path / "agent", AGENT_YAML)
    provider = ScriptedProvider()
    async with chat(agent, ChatStore(tmp_path / "db.sqlite3"), provider) as session:
        await load_fix_ci(session, provider)
        session.remove_item(FIX_CI)
        provider.enqueue_reply("Sure.")
        events = await send(session, "what next?")
        assert not body_sent(provider.requests[-1], agent, "gh-fix-ci")
        assert not final_context(events).of_type("skill")


async def test_a_failed_load_pulls_nothing(tmp_path: Path) -> None:
    agent = skilled_agent(tmp_path / "agent", AGENT_YAML)
    provider = ScriptedProvider()
    async with chat(agent, ChatStore(tmp_path / "db.sqlite3"), provider) as session:
        provider.enqueue_tool_call(LOAD, {"name": "no-such-skill"}, id="load-1")
        provider.enqueue_reply("There is no such skill.")
        events = await send(session, "use the pdf skill")
        assert not [e for e in events if isinstance(e, ItemPulled)]
        assert not final_context(events).of_type("skill")
        assert all(item.ref.type != "skill" for item in session.items)


async def test_always_and_added_skills_carry_their_body_and_a_disabled_one_never_shows(
    tmp_path: Path,
) -> None:
    agent = skilled_agent(
        tmp_path / "agent",
        "name: a\nskills:\n  linear:\n    include: always\n  create-plan:\n    enabled: false\n",
    )
    provider = ScriptedProvider()
    async with chat(agent, ChatStore(tmp_path / "db.sqlite3"), provider) as session:
        session.add_item(ItemRef("skill", "web-design-guidelines"))
        session.add_item(ItemRef("skill", "create-plan"))  # disabled: it does not join
        provider.enqueue_reply("Done.")
        events = await send(session, "make a plan for the release")
    request = provider.requests[0]
    assert body_sent(request, agent, "linear") and body_sent(request, agent, "web-design-guidelines")
    everything = "\n".join(m.content for m in request.messages) + "".join(
        t.description for t in request.tools
    )
    assert "create-plan" not in everything
    assert skill_states(final_context(events)) == {
        "linear": ("loaded", "always", ALWAYS_REASON),
        "web-design-guidelines": ("loaded", "manual", ADDED_REASON),
    }


async def test_undoing_a_compaction_loads_again_the_skills_its_turns_loaded(tmp_path: Path) -> None:
    agent = skilled_agent(tmp_path / "agent", AGENT_YAML)
    provider = ScriptedProvider()
    async with chat(agent, ChatStore(tmp_path / "db.sqlite3"), provider) as session:
        await load_fix_ci(session, provider)
        asked = next(m.id for m in session.history() if m.role == "user")
        provider.enqueue_reply("The lint job fails on an unused import.")
        await send(session, "what did you find?")
        provider.enqueue_reply("The user asked to fix failing CI checks; the lint job failed.")
        summary = await session.compact()
        assert summary is not None and FIX_CI not in {item.ref for item in session.items}
        session.undo_compaction(summary)
        assert [i.loaded_at for i in session.items if i.ref == FIX_CI] == [asked]  # as before it
        provider.enqueue_reply("Fixed.")
        events = await send(session, "go on")
        assert body_sent(provider.requests[-1], agent, "gh-fix-ci")
        assert skill_states(final_context(events)) == {
            "gh-fix-ci": ("loaded", "manual", LOADED_EARLIER_REASON)
        }


async def test_undoing_a_compaction_leaves_out_a_loaded_skill_the_user_removed(tmp_path: Path) -> None:
    agent = skilled_agent(tmp_path / "agent", AGENT_YAML)
    provider = ScriptedProvider()
    async with chat(agent, ChatStore(tmp_path / "db.sqlite3"), provider) as session:
        await load_fix_ci(session, provider)
        session.remove_item(FIX_CI)
        provider.enqueue_reply("Sure.")
        await send(session, "what next?")
        provider.enqueue_reply("The user asked to fix failing CI checks.")
        summary = await session.compact()
        assert summary is not None
        session.undo_compaction(summary)
        assert FIX_CI not in {item.ref for item in session.items}
