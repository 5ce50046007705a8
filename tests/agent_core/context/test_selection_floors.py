"""A near-miss under a floor names the floor it missed and the score that floor asked for, in the
terms of View Context's header: minScore, raised for a question, or one request's stricter one."""

from __future__ import annotations

import pytest

from agent_core.context.selection_floors import (
    BELOW_CLAUSE_FLOOR,
    BELOW_QUESTION_FLOOR,
    message_floor,
    threshold_miss,
)
from indexer import ScoredDocument, SelectionSettings

SETTINGS = SelectionSettings()  # minScore 0.45, questionFloor 0.10, clauseMargin 0.05, includeScore 0.70
TASK = "deploy the hotfix to staging"
QUESTION = "what's the difference between git diff and git show?"


def miss(score: float, reason: str = "below_floor") -> ScoredDocument:
    return ScoredDocument("rule:x", "rule", "x", None, score, score, "", False, reason)  # type: ignore[arg-type]


def test_under_the_messages_own_floor_it_needed_min_score() -> None:
    assert message_floor(SETTINGS, TASK) == (pytest.approx(0.45), False)
    assert threshold_miss(miss(0.37), SETTINGS, TASK) == ("below_floor", 0.45)


def test_a_question_raises_the_floor_and_the_needed_score_says_so() -> None:
    # Before: "needed 0.50, got 0.52", a bar the item had cleared.
    assert message_floor(SETTINGS, QUESTION) == (pytest.approx(0.55), True)
    assert threshold_miss(miss(0.52), SETTINGS, QUESTION) == (BELOW_QUESTION_FLOOR, 0.55)


def test_clearing_the_message_floor_but_not_a_clauses_names_the_clause_floor() -> None:
    assert threshold_miss(miss(0.47), SETTINGS, TASK) == (BELOW_CLAUSE_FLOOR, 0.5)
    assert threshold_miss(miss(0.57), SETTINGS, QUESTION) == (BELOW_CLAUSE_FLOOR, 0.6)


def test_a_floor_over_include_score_is_capped_there_and_other_reasons_need_nothing() -> None:
    low_include = SelectionSettings(include_score=0.5)
    assert threshold_miss(miss(0.49), low_include, QUESTION) == (BELOW_QUESTION_FLOOR, 0.5)
    assert threshold_miss(miss(0.6, "far_from_best"), SETTINGS, TASK) == ("far_from_best", None)
    anchor = SelectionSettings(strategy="anchor")
    assert message_floor(anchor, QUESTION) == (pytest.approx(0.45), False)
