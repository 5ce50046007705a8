"""The real selector (MiniLM) never gives one message the same item twice: a skill vendored by a
second collection, imported as a reference or loaded as a skill, takes one place, and its copy is a
near-miss "duplicate of X" with X's score; templated items are still ranked one by one."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.schema import SelectionConfig
from agent_core.context.items import ItemRef
from agent_core.context.selection import Candidate, ContextSelector, SelectionOutcome
from agent_core.context.sources import ContextRequest, candidates_from
from tests.support.agent_files import write
from tests.support.duplicate_items import COLLECTIONS, reference

pytestmark = pytest.mark.slow  # the real MiniLM model


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    shared = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield shared
    shared.indexer.close()


def select(selector: ContextSelector, message: str, candidates: list[Candidate]) -> SelectionOutcome:
    outcome = asyncio.run(selector.select(message, candidates, SelectionConfig()))
    assert outcome.run.status == "ok", outcome.run
    return outcome


def duplicates(outcome: SelectionOutcome) -> dict[str, tuple[str, float | None]]:
    return {
        m.ref.name: (m.reason, m.score) for m in outcome.near_misses if m.reason.startswith("duplicate of")
    }


def test_a_reference_in_two_collections_is_selected_once_and_its_copy_is_a_near_miss(
    selector: ContextSelector,
) -> None:
    library = [
        reference("vercel-labs", "web-design-guidelines"),
        reference("antigravity", "web-design-guidelines", "web-design-guidelines-2"),
        reference("antigravity", "senior-architect"),
        reference("antigravity", "senior-fullstack"),
    ]

    outcome = select(selector, "Review my UI code against the web interface guidelines", library)

    assert [item.ref.name for item in outcome.items] == ["web-design-guidelines"]
    score = outcome.items[0].score
    assert duplicates(outcome)["web-design-guidelines-2"] == ("duplicate of web-design-guidelines", score)


def test_two_identical_skills_are_never_both_selected(selector: ContextSelector, tmp_path: Path) -> None:
    write(tmp_path / "agent.yaml", "name: two-collections\n")
    for folder in (
        "error-debugging-error-analysis",
        "error-diagnostics-error-analysis",
        "senior-architect",
        "senior-fullstack",
    ):
        shutil.copytree(COLLECTIONS / "antigravity" / folder, tmp_path / "skills" / folder)
    agent = load_agent(tmp_path)
    assert not agent.errors
    candidates = candidates_from(ContextRequest(agent, "", None, (), ()))
    assert len(candidates) == 4

    outcome = select(
        selector,
        "Do an error analysis of last night's production incident in our distributed system",
        candidates,
    )

    selected = [item.ref for item in outcome.items]
    assert selected == [ItemRef("skill", "error-debugging-error-analysis")]
    assert duplicates(outcome) == {
        "error-diagnostics-error-analysis": (
            "duplicate of error-debugging-error-analysis",
            outcome.items[0].score,
        )
    }


def test_a_templated_neighbour_is_ranked_as_an_item_of_its_own(selector: ContextSelector) -> None:
    library = [reference("antigravity", "senior-architect"), reference("antigravity", "senior-fullstack")]

    outcome = select(
        selector, "Scaffold a new fullstack Next.js project with GraphQL and PostgreSQL", library
    )

    assert not duplicates(outcome)
    scored = {item.ref.name: item.score for item in outcome.items} | {
        miss.ref.name: miss.score for miss in outcome.near_misses
    }
    assert set(scored) == {"senior-architect", "senior-fullstack"}
    assert scored["senior-fullstack"] != scored["senior-architect"]
