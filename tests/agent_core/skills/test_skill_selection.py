"""Skills chosen per message by the real selector (MiniLM) from the same index as rules and
references, in a workspace that runs the real ``skills`` server; the model is scripted at the
provider boundary: a message selects a skill, the model loads it, and the reply's RequestContext
shows both steps. A model that cannot call tools gets the best skill's body inline instead."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.schema import SelectionConfig
from agent_core.chat.events import ChatEvent, ContextBuilt, ReplyFinished, ToolCallFinished
from agent_core.context.items import ItemRef, RequestContext
from agent_core.context.learned import LearnedSelections
from agent_core.context.selection import ContextSelector
from agent_core.context.skill_disclosure import LOADED_NOW_REASON
from agent_core.context.skill_framing import CATALOGUE_OPENING, INLINE_OPENING
from agent_core.context.skill_search import skill_ranker
from agent_core.context.skill_server import SKILLS_SERVER, agent_servers
from agent_core.context.sources import ContextRequest, candidates_from
from agent_core.mcp import McpManager
from agent_core.providers.base import ToolCalling
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.workspace import Workspace
from tests.support.agent_files import write
from tests.support.paths import FIXTURES
from tests.support.scripted_models import OnePool

pytestmark = pytest.mark.slow  # the real MiniLM model

SKILLS = FIXTURES / "skill_disclosure" / "skills"
FIX_CI = ItemRef("skill", "gh-fix-ci")
CI_MESSAGE = "The GitHub Actions checks on my pull request keep failing, can you fix the CI?"


class ToolLess(ScriptedProvider):
    """The scripted provider, declaring itself a model that cannot call tools (as the local one)."""

    def tool_calling(self, model_id: str) -> ToolCalling:
        return "none"


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    shared = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield shared
    shared.indexer.close()


def skilled_agent(root: Path, agent_yaml: str = "name: skilled\n") -> Agent:
    write(root / "agent.yaml", agent_yaml)
    shutil.copytree(SKILLS, root / "skills")
    return load_agent(root)


def run(workspace: Workspace, messages: Sequence[str]) -> list[list[ChatEvent]]:
    async def scenario() -> list[list[ChatEvent]]:
        try:
            statuses = await workspace.start_tools()
            assert all(status.state == "ready" for status in statuses), statuses
            session = workspace.new_chat()
            return [[event async for event in session.send(text)] for text in messages]
        finally:
            await workspace.aclose()

    return asyncio.run(scenario())


def built(events: Sequence[ChatEvent]) -> RequestContext:
    return next(e for e in events if isinstance(e, ContextBuilt)).context


def replied(events: Sequence[ChatEvent]) -> RequestContext:
    finished = next(e for e in events if isinstance(e, ReplyFinished))
    assert finished.message.request_context is not None
    return finished.message.request_context


@pytest.mark.parametrize(
    ("message", "wanted"),
    [
        (CI_MESSAGE, "gh-fix-ci"),
        ("review my UI for accessibility", "web-design-guidelines"),
        ("write property tests for my json parser with hypothesis", "property-based-testing"),
        ("What's a good recipe for banana bread?", None),
    ],
)
def test_selection_picks_the_skill_a_message_needs_and_no_other(
    tmp_path: Path, selector: ContextSelector, message: str, wanted: str | None
) -> None:
    agent = skilled_agent(tmp_path / "agent")
    request = ContextRequest(agent, message, None, (), ())
    outcome = asyncio.run(selector.select(message, candidates_from(request), SelectionConfig()))
    assert outcome.run.status == "ok"
    chosen = [item.ref.name for item in outcome.items if item.ref.type == "skill"]
    assert chosen == ([wanted] if wanted else [])


def test_a_message_selects_a_skill_the_model_loads_and_the_reply_records_both_steps(
    tmp_path: Path, selector: ContextSelector
) -> None:
    agent = skilled_agent(tmp_path / "agent")
    provider = ScriptedProvider()
    provider.enqueue_tool_call("skills__load", {"name": "gh-fix-ci"}, id="load-1")
    # The scripts' step joins here: one more scripted call of skills__run_script.
    provider.enqueue_reply("The lint job fails; I will fix the import.")
    workspace = Workspace(
        agent, store=ChatStore(tmp_path / "db.sqlite3"), selector=selector, providers=OnePool(provider)
    )
    [events] = run(workspace, [CI_MESSAGE])

    first = built(events)
    [selected] = first.of_type("skill")
    assert (selected.ref, selected.include_mode, selected.skill_state) == (FIX_CI, "agent", "catalogue")
    assert selected.score is not None and selected.score > 0.5
    request = provider.requests[0]
    assert CATALOGUE_OPENING in request.messages[-1].content
    assert "- gh-fix-ci: Inspect GitHub PR checks" in request.messages[-1].content
    assert "skills__load" in {tool.name for tool in request.tools}

    [load] = [e.record for e in events if isinstance(e, ToolCallFinished)]
    assert (load.server, load.tool, load.is_error) == ("skills", "load", False)
    context = replied(events)
    [skill] = context.of_type("skill")
    assert (skill.skill_state, skill.reason, skill.score) == ("loaded", LOADED_NOW_REASON, selected.score)
    assert ItemRef("tool", "load", "skills") in {item.ref for item in context.items}
    assert context.manifest is not None and context.manifest.skills_listed_tokens > 0


def test_a_model_that_cannot_call_tools_gets_the_best_skill_inline_above_the_threshold_only(
    tmp_path: Path, selector: ContextSelector
) -> None:
    agent = skilled_agent(tmp_path / "agent", "name: local\nselection:\n  skillInlineScore: 0.7\n")
    provider = ToolLess()
    provider.enqueue_reply("Your buttons need labels.")
    provider.enqueue_reply("Use Hypothesis.")
    workspace = Workspace(
        agent, store=ChatStore(tmp_path / "db.sqlite3"), selector=selector, providers=OnePool(provider)
    )
    above, below = run(
        workspace,
        ["review my UI for accessibility", "write property tests for my json parser with hypothesis"],
    )

    [inline] = built(above).of_type("skill")
    assert (inline.ref.name, inline.skill_state) == ("web-design-guidelines", "inline")
    assert inline.score is not None and inline.score >= 0.7
    sent = provider.requests[0].messages[-1].content
    assert INLINE_OPENING in sent and agent.skills["web-design-guidelines"].body.strip()[:100] in sent
    assert not provider.requests[0].tools and CATALOGUE_OPENING not in sent

    context = built(below)
    assert not context.of_type("skill")
    miss = next(m for m in context.near_misses if m.ref.name == "property-based-testing")
    assert miss.needed == 0.7 and miss.score is not None and miss.score < 0.7
    assert "skillInlineScore" in context.notes.skills
    assert INLINE_OPENING not in provider.requests[1].messages[-1].content


def test_a_skill_the_model_found_beyond_selection_teaches_selection_and_a_selected_one_does_not(
    tmp_path: Path, selector: ContextSelector
) -> None:
    agent = skilled_agent(tmp_path / "agent")
    provider = ScriptedProvider()
    provider.enqueue_tool_call("skills__load", {"name": "gh-fix-ci"}, id="load-1")  # selected
    provider.enqueue_reply("Fixing it.")
    provider.enqueue_tool_call("skills__search", {"query": "tickets"}, id="search-1")
    provider.enqueue_tool_call("skills__load", {"name": "linear"}, id="load-2")  # not selected
    provider.enqueue_reply("Filed.")
    workspace = Workspace(
        agent, store=ChatStore(tmp_path / "db.sqlite3"), selector=selector, providers=OnePool(provider)
    )
    _, filed = run(workspace, [CI_MESSAGE, "file that as a ticket for me"])
    # gh-fix-ci is still loaded from the first message; selection offered nothing: the model searched.
    assert [(i.ref.name, i.skill_state) for i in built(filed).of_type("skill")] == [("gh-fix-ci", "loaded")]
    learned = LearnedSelections(tmp_path / "db.sqlite3")
    try:
        [taught] = learned.corrections(str(agent.root))
    finally:
        learned.close()
    assert (taught.ref, taught.message, taught.added) == (
        ItemRef("skill", "linear"),
        "file that as a ticket for me",
        True,
    )


def test_search_ranks_every_skill_by_meaning_with_the_selections_index(
    tmp_path: Path, selector: ContextSelector
) -> None:
    agent = skilled_agent(tmp_path / "agent")

    async def search(query: str, *, by_meaning: bool = True) -> str:
        ranker = skill_ranker(selector) if by_meaning else None
        servers = agent_servers(agent)
        async with McpManager(servers, skills_source=lambda: agent.skills, skill_ranker=ranker) as m:
            result = await m.call_tool(SKILLS_SERVER, "search", {"query": query})
        assert not result.is_error
        return result.text

    # No word of the query is in the skill's name or description: only meaning finds it.
    query = "is my website usable with a screen reader"
    assert asyncio.run(search(query)).splitlines()[0].startswith("- web-design-guidelines:")
    assert asyncio.run(search(query, by_meaning=False)).startswith("No skill matches")  # by words
