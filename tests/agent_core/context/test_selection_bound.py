"""topN bounds what one message gets from selection, whatever put an item in: the whole message,
a clause of a compound message, an example, a correction, or a score above includeScore."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from agent_core.agent.schema import SelectionConfig
from agent_core.context.items import ItemRef
from agent_core.context.selection import Candidate, ContextSelector, SelectionOutcome, indexer_settings
from agent_core.context.selection_bound import bounded, over_top_n_reason
from indexer import Document, ScoredDocument

# References a build-and-test library offers: many share the words of a compound request.
BUILD_AND_TEST = {
    "build-with-make": "Run the build with make: make all builds every target; make -j4 in parallel.",
    "build-with-gradle": "Run the build with Gradle: ./gradlew build compiles and packages the project.",
    "build-with-cargo": "Run the build with cargo build --release and look at the output in target/.",
    "build-with-npm": "Run the build with npm run build; the output goes to dist/.",
    "build-with-cmake": "Configure and run the build with cmake -B build and cmake --build build.",
    "run-pytest": "Run the tests with pytest -q and show the output of failing tests with -rA.",
    "run-jest": "Run the tests with npx jest; show the output with --verbose.",
    "run-go-test": "Run the tests with go test ./... and show the output with -v.",
    "run-cargo-test": "Run the tests with cargo test; show the output of passing tests with -- --nocapture.",
    "run-junit": "Run the tests with mvn test; the output is in target/surefire-reports.",
    "ci-logs": "Show me the output of the last CI run: the logs of each job and step.",
    "test-coverage": "Run the tests with coverage and show the coverage report output.",
    "build-logs": "Where the build output and logs go, and how to show them.",
    "docker-build": "Run the docker build and show the build output with --progress=plain.",
    "bazel-build": "Run the build with bazel build //... and the tests with bazel test //...",
}

ASTRONOMY = [
    "Saw Jupiter and four of its moons through the telescope tonight.",
    "The Perseid meteor shower peaks in mid August; best after midnight away from city lights.",
    "Andromeda galaxy is visible to the naked eye from a dark site in autumn.",
]
OTHER_NOTES = [
    "Sourdough starter needs feeding twice a day at room temperature.",
    "Tomatoes need staking by June; pinch out the side shoots.",
    "Quarterly planning meeting moved to Thursday.",
    "Train to Lyon leaves at 7:42 from Gare de Lyon.",
    "Roast the vegetables at 220C for 35 minutes, turning once.",
    "Compost heap turned; it is steaming nicely.",
    "Ask Dana about the budget for the new laptops.",
    "Pack adapters and the rain jacket.",
]


def note_candidates(count: int) -> list[Candidate]:
    """``count`` short notes, one in five about astronomy (the rest about cooking, work, travel)."""
    found = []
    for number in range(count):
        about_stars = number % 5 == 0
        text = ASTRONOMY[number % 3] if about_stars else OTHER_NOTES[number % len(OTHER_NOTES)]
        topic = "astronomy" if about_stars else "everyday"
        name = f"note-{number:03d}"
        found.append(reference(name, f"note {number} ({topic})", f"{text} Note number {number}."))
    return found


def reference(name: str, description: str, text: str) -> Candidate:
    ref = ItemRef("reference", name)
    return Candidate(
        ref, Document(key=ref.key, kind="reference", name=name, description=description, text=text)
    )


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    selector = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield selector
    selector.indexer.close()


def select(
    selector: ContextSelector, message: str, candidates: list[Candidate], config: SelectionConfig
) -> SelectionOutcome:
    return asyncio.run(selector.select(message, candidates, config))


def indexer_included(
    selector: ContextSelector, message: str, candidates: list[Candidate], config: SelectionConfig
) -> int:
    """How many items the indexer alone includes (before the bound)."""
    documents = [candidate.document for candidate in candidates]
    return len(selector.indexer.select(message, documents, indexer_settings(config)).included)


@pytest.mark.slow
def test_a_compound_request_over_a_large_library_gets_at_most_top_n_items(selector: ContextSelector) -> None:
    library = [reference(name, text.split(":")[0], text) for name, text in BUILD_AND_TEST.items()]
    message = "run the build and the tests and show me the output"
    config = SelectionConfig(top_n=3)
    assert indexer_included(selector, message, library, config) > 3  # the flood the bound is for

    outcome = select(selector, message, library, config)

    assert outcome.run.status == "ok"
    assert 0 < len(outcome.items) <= 3
    over = [miss for miss in outcome.near_misses if miss.reason == over_top_n_reason(3)]
    assert over and over_top_n_reason(3) == "over topN: 3 items scored higher"
    lowest_kept = min(item.score or 0.0 for item in outcome.items)
    assert all(miss.score is not None and miss.score <= lowest_kept for miss in over)
    kept = {item.ref for item in outcome.items}
    assert not kept & {miss.ref for miss in outcome.near_misses}
    assert set(outcome.via) == kept


@pytest.mark.slow
def test_three_hundred_notes_asked_about_one_topic_give_at_most_top_n(selector: ContextSelector) -> None:
    notes = note_candidates(300)
    message = "What do my notes say about astronomy?"
    # topN 5. The notes are near-copies of three texts, so folding near twins would take most of
    # the flood away by itself; this test is about the bound, which holds whatever put items in.
    config = SelectionConfig(twin_similarity=1.0)
    assert indexer_included(selector, message, notes, config) > 5

    outcome = select(selector, message, notes, config)

    assert 0 < len(outcome.items) <= 5
    astronomy = {c.ref for n, c in enumerate(notes) if n % 5 == 0}
    assert {item.ref for item in outcome.items} <= astronomy
    assert outcome.near_misses[0].reason == "over topN: 5 items scored higher"


def scored(name: str, score: float, reason: str = "above_include_score") -> ScoredDocument:
    return ScoredDocument(
        key=f"reference:{name}",
        kind="reference",
        name=name,
        server=None,
        score=score,
        cosine=score,
        best_chunk="",
        included=True,
        reason=reason,  # type: ignore[arg-type]
    )


def test_the_bound_keeps_the_best_scored_whatever_order_they_came_in() -> None:
    included = [scored("clause-match", 0.6, "within_top_n"), scored("high", 0.9), scored("mid", 0.75)]
    kept, over = bounded(included, 2)
    assert [c.name for c in kept] == ["high", "mid"]
    assert [c.name for c in over] == ["clause-match"]
    assert bounded(included, 0) == ((), tuple(sorted(included, key=lambda c: -c.score)))
    assert over_top_n_reason(1) == "over topN: 1 item scored higher"
