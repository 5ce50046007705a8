"""A question about what one thing is ("what's git") gets at most the best item about it, not
every item named after it; a request about the same things, or about the user's own, is ranked
as before."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from agent_core.agent.schema import SelectionConfig
from agent_core.context.reason_words import reason_words
from agent_core.context.selection import indexer_settings
from indexer import Document, Indexer, SelectionSettings
from indexer._one_thing import asks_what_one_thing_is
from indexer.backends import EmbeddingBackend
from indexer.ranking import REASONS, Ranking, only_the_best

ITEMS = Path(__file__).resolve().parents[2] / "benchmarks" / "selection" / "scale" / "items.jsonl"


@pytest.mark.parametrize(
    "message",
    [
        "what's git",
        "whats a pdf",
        "what is a git rebase?",
        "what does SEO stand for",
        "what is jira used for",
        "explain oauth simply",
        "explain the CAP theorem like I'm five",
        "so what's terraform",
    ],
)
def test_questions_about_what_one_thing_is(message: str) -> None:
    assert asks_what_one_thing_is(message)


@pytest.mark.parametrize(
    "message",
    [
        "what's on my calendar",  # the user's own things: something to look up
        "whats the difference between sql and nosql",  # two things
        "what are the severity levels for incidents?",  # more than one thing's name
        "define SLOs and error budgets for the checkout service",  # a task
        "explain this error",
        "commit and open a PR",
        "clean up the git branches",
    ],
)
def test_other_messages_are_not(message: str) -> None:
    assert not asks_what_one_thing_is(message)


def test_only_the_best_included_item_stays_and_the_others_say_why() -> None:
    reason = np.asarray([REASONS.index("within_top_n")] * 3 + [REASONS.index("below_floor")], dtype=np.int8)
    ranking = Ranking(
        score=np.asarray([0.8, 0.9, 0.7, 0.3], dtype=np.float32),
        cosine=np.zeros(4, dtype=np.float32),
        chunk=np.arange(4, dtype=np.intp),
        reason=reason,
        tiebreak=np.arange(4, dtype=np.intp),
    )
    kept = only_the_best(ranking, 1)
    assert kept.included_order().tolist() == [1]
    assert [REASONS[r] for r in kept.reason] == [
        "one_thing_asked",
        "within_top_n",
        "one_thing_asked",
        "below_floor",
    ]
    assert only_the_best(ranking, 3) is ranking  # nothing to leave out
    assert reason_words("one_thing_asked").startswith("the message asks what one thing is")


def test_the_setting_reaches_the_indexer_and_is_checked() -> None:
    assert SelectionSettings().definition_top_n == 1
    config = SelectionConfig.model_validate({"definitionTopN": 3})
    assert indexer_settings(config).definition_top_n == 3
    with pytest.raises(ValidationError, match=r"definitionTopN|definition_top_n"):
        SelectionConfig.model_validate({"definitionTopN": -1})
    with pytest.raises(ValueError, match="definition_top_n"):
        SelectionSettings(definition_top_n=-1)


@pytest.fixture(scope="module")
def git_skills() -> list[Document]:
    """Real public git skills, as a library of a thousand has them side by side."""
    rows = [json.loads(line) for line in ITEMS.read_text(encoding="utf-8").splitlines() if line]
    return [
        Document(f"skill:{r['name']}", "skill", r["name"], r["description"], "")
        for r in rows
        if r["name"].startswith("git") or r["name"] in {"commit", "pr", "rebase", "merge"}
    ]


@pytest.mark.slow
def test_what_s_git_gets_one_git_skill_and_a_git_task_keeps_its_choice(
    minilm: EmbeddingBackend, git_skills: list[Document]
) -> None:
    assert len(git_skills) >= 8
    indexer = Indexer(lambda: minilm)
    try:
        every = indexer.select("what's git", git_skills, SelectionSettings(definition_top_n=5))
        assert len(every.included) > 1  # each git skill matches the name it is named after
        one = indexer.select("what's git", git_skills)
        assert [c.key for c in one.included] == [every.included[0].key]
        left = {c.key: c.reason for c in one.candidates}
        assert {left[c.key] for c in every.included[1:]} == {"one_thing_asked"}
        task = "tidy up the stale git branches and worktrees"
        assert [c.key for c in indexer.select(task, git_skills).included] == [
            c.key for c in indexer.select(task, git_skills, SelectionSettings(definition_top_n=5)).included
        ]
    finally:
        indexer.close()
