"""Templated families with the real model: among the hundred app items of the selection-at-scale
set (one description template, only the app's name and operations differ) and the collection
skills about calendars and meetings, an app the message does not name is not offered, however
the embedding ranks it, and a short follow-up is named by the message before it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from indexer import Document, Indexer, SelectionSettings
from indexer.backends import EmbeddingBackend

ITEMS = Path(__file__).resolve().parents[2] / "benchmarks" / "selection" / "scale" / "items.jsonl"
CALENDAR, MEET = "skill:google-calendar-automation", "skill:google-meet-automation"
CALENDLY = "skill:calendly-automation"
#: Words of the collection items that compete with the calendar apps.
NEIGHBOURS = ("calendar", "meeting", "schedul")


@pytest.fixture(scope="module")
def library() -> list[Document]:
    """The set's 100 templated app items and its other skills about calendars and meetings."""
    rows = [json.loads(line) for line in ITEMS.read_text(encoding="utf-8").splitlines() if line]
    documents = [
        Document(f"skill:{r['name']}", "skill", r["name"], r["description"], r["text"])
        for r in rows
        if r["group"] == "app-template"
        or any(word in f"{r['name']} {r['description']}".lower() for word in NEIGHBOURS)
    ]
    assert len(documents) > 120
    return documents


@pytest.mark.slow
def test_an_app_the_message_does_not_name_is_not_offered(
    minilm: EmbeddingBackend, library: list[Document]
) -> None:
    message = "whats on my calender tomorrow"
    indexer = Indexer(lambda: minilm)
    try:
        # Head agreement off: it leaves Calendly out too (a heading of its body matches, not its
        # description), and this test is about the families alone.
        alone = SelectionSettings(head_agreement_slope=0.0)
        ungated = indexer.select(message, library, replace(alone, template_family_min=0))
        assert CALENDLY in [c.key for c in ungated.included]  # what the embedding alone offers
        gated = indexer.select(message, library, alone)
        assert CALENDLY not in [c.key for c in gated.included]
        assert next(c for c in gated.candidates if c.key == CALENDLY).reason == "not_named"
    finally:
        indexer.close()


@pytest.mark.slow
def test_the_named_app_is_chosen_and_its_unnamed_neighbour_is_not(
    minilm: EmbeddingBackend, library: list[Document]
) -> None:
    indexer = Indexer(lambda: minilm)
    try:
        chosen = indexer.select("add a meeting with Sam on friday 3pm to my google calendar", library)
        assert [c.key for c in chosen.included] == [CALENDAR]
        assert next(c for c in chosen.candidates if c.key == MEET).reason == "not_named"
    finally:
        indexer.close()


@pytest.mark.slow
def test_a_short_follow_up_is_named_by_the_message_before_it(
    minilm: EmbeddingBackend, library: list[Document]
) -> None:
    # No floor, so that every item is decided by the gate rather than left under the floor.
    settings = SelectionSettings(min_score=0.0)
    indexer = Indexer(lambda: minilm)
    try:
        alone = indexer.select("and for friday?", library, settings)
        after = indexer.select(
            "and for friday?", library, settings, previous_message="whats on my google calendar"
        )
        reason = {c.key: c.reason for c in alone.candidates}
        assert reason[CALENDAR] == "not_named"
        assert next(c for c in after.candidates if c.key == CALENDAR).reason != "not_named"
        # A long message is not a follow-up: the one before it names nothing for it.
        long_message = "please check what else is planned for the rest of the week for the whole team"
        later = indexer.select(
            long_message, library, settings, previous_message="whats on my google calendar"
        )
        assert next(c for c in later.candidates if c.key == CALENDAR).reason == "not_named"
    finally:
        indexer.close()
