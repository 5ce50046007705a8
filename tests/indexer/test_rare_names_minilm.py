"""Rare names with the real model: in a library of templated app items (one description template,
only the app's name and operations differ; the shape of the selection-at-scale set,
benchmarks/selection/scale/), a message naming one app gets that app and not its neighbours."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexer import Document, Indexer, SelectionSettings
from indexer.backends import EmbeddingBackend

ITEMS = Path(__file__).resolve().parents[2] / "benchmarks" / "selection" / "scale" / "items.jsonl"
OFF = SelectionSettings(rare_name_weight=0.0, rare_name_lift=False, head_lexical_share=0.0)


def templated_library() -> list[Document]:
    """The 100 templated app items of the set, as agent-mode references."""
    rows = [json.loads(line) for line in ITEMS.read_text(encoding="utf-8").splitlines() if line]
    return [
        Document(f"reference:{r['name']}", "reference", r["name"], r["description"], r["text"])
        for r in rows
        if r["group"] == "app-template"
    ]


@pytest.fixture(scope="module")
def library() -> list[Document]:
    documents = templated_library()
    assert len(documents) == 100
    return documents


@pytest.mark.slow
@pytest.mark.parametrize(
    ("message", "app"),
    [
        ("log my morning run on strava", "strava-automation"),
        ("add the dinner bill to splitwise, split 4 ways", "splitwise-automation"),
        ("get the fireflies transcript of the sales call", "fireflies-automation"),
    ],
)
def test_a_message_naming_an_app_gets_that_app_alone(
    minilm: EmbeddingBackend, library: list[Document], message: str, app: str
) -> None:
    indexer = Indexer(lambda: minilm)
    try:
        chosen = [c.key for c in indexer.select(message, library, SelectionSettings()).included]
        assert chosen == [f"reference:{app}"]
    finally:
        indexer.close()


@pytest.mark.slow
def test_the_signal_widens_the_named_apps_lead_over_its_template_neighbours(
    minilm: EmbeddingBackend, library: list[Document]
) -> None:
    # The embedding alone scores the hundred templated items almost alike; the name sets one apart.
    indexer = Indexer(lambda: minilm)
    try:
        leads = []
        for settings in (OFF, SelectionSettings()):
            best = indexer.select("log my morning run on strava", library, settings).best(2)
            assert best[0].key == "reference:strava-automation"
            leads.append(best[0].score - best[1].score)
        assert leads[1] >= leads[0] + 0.1
    finally:
        indexer.close()


@pytest.mark.slow
def test_a_message_naming_no_app_gets_none(minilm: EmbeddingBackend, library: list[Document]) -> None:
    indexer = Indexer(lambda: minilm)
    try:
        assert not indexer.select("thanks, that was helpful!", library, SelectionSettings()).included
    finally:
        indexer.close()
