"""Compound messages ranked clause by clause, example requests, and what the user taught by adding
and removing items: the pure parts with crafted inputs, the whole with the real MiniLM."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from indexer import Document, Indexer, SelectionSettings, tool_document
from indexer._texts import clauses, hybrid_chunks
from indexer.backends import EmbeddingBackend
from indexer.ranking import VIA_CLAUSE, VIA_LEARNED, VIA_WHOLE, Ranking, corrected, merge_rankings

RULE = Document("rule:regex-style", "rule", "regex-style", "How we write regular expressions", "Name groups.")
DEPLOY = tool_document("deploy", "deploy_service", "Deploy a service to an environment", {})
POST = tool_document("slack", "post_message", "Post a message to a Slack channel", {})
RELEASE = Document(
    "rule:release-process",
    "rule",
    "release-process",
    "How releases go out",
    "Deploy to staging first, then production after the smoke tests pass.",
)


@pytest.mark.parametrize(
    ("message", "parts"),
    [
        (
            "deploy the hotfix branch to staging and tell the on-call channel",
            ["deploy the hotfix branch to staging", "tell the on-call channel"],
        ),
        (
            "commit the staged changes and open a PR against main, then post the link in #eng",
            ["commit the staged changes", "open a PR against main", "post the link in #eng"],
        ),
        ("salt and pepper", []),  # too short to be two requests
        ("read the notes; summarise them", []),  # "summarise them" joins the one before
        ("what is our refund policy for annual plans", []),
    ],
)
def test_a_compound_message_splits_into_its_requests(message: str, parts: list[str]) -> None:
    assert clauses(message) == parts


def _ranking(scores: list[float], reasons: list[int]) -> Ranking:
    n = len(scores)
    return Ranking(
        np.array(scores, np.float32),
        np.array(scores, np.float32),
        np.zeros(n, np.intp),
        np.array(reasons, np.int8),
        np.arange(n, dtype=np.intp),
    )


def test_merged_views_include_what_any_view_includes_up_to_top_n_and_say_which() -> None:
    within, floor = 1, 3
    whole = _ranking([0.6, 0.3, 0.2, 0.1], [within, floor, floor, floor])
    clause = _ranking([0.2, 0.55, 0.5, 0.1], [floor, within, within, floor])
    merged = merge_rankings([whole, clause], top_n=2)
    assert merged.included.tolist() == [True, True, False, False]  # top_n 2: the weaker clause item waits
    assert merged.via is not None and merged.via[:2].tolist() == [VIA_WHOLE, VIA_CLAUSE]
    assert merged.score.tolist() == pytest.approx([0.6, 0.55, 0.5, 0.1])


def test_an_item_left_out_gets_the_reason_of_the_view_its_score_comes_from() -> None:
    within, floor, far = 1, 3, 4
    whole = _ranking([0.7, 0.40], [within, floor])  # under the whole message's floor...
    clause = _ranking([0.3, 0.52], [floor, far])  # ...but cleared one clause's, far from its best
    merged = merge_rankings([whole, clause], top_n=2)
    assert merged.row(1).score == pytest.approx(0.52)
    assert merged.row(1).reason == "far_from_best"  # not "below_floor" beside a score that cleared it


def test_corrections_include_what_was_added_and_a_removal_wins() -> None:
    within, floor = 1, 3
    ranking = _ranking([0.6, 0.3, 0.2], [within, floor, floor])
    fixed = corrected(ranking, np.array([False, True, True]), np.array([True, False, True]))
    assert fixed.included.tolist() == [False, True, False]
    assert fixed.via is not None and fixed.via[1] == VIA_LEARNED
    assert fixed.row(0).reason == "removed_for_similar"


def test_example_requests_are_chunks_of_their_item() -> None:
    with_examples = dataclasses.replace(RULE, examples=("make this regex readable",))
    assert hybrid_chunks(with_examples) == [*hybrid_chunks(RULE), "make this regex readable"]


@pytest.mark.slow
def test_each_request_of_a_compound_message_gets_its_items(minilm: EmbeddingBackend) -> None:
    indexer = Indexer(lambda: minilm)
    message = "deploy the booking service to staging and post a note in the releases slack channel"
    whole_only = indexer.select(message, [DEPLOY, POST, RELEASE], SelectionSettings(clause_split=False))
    split = indexer.select(message, [DEPLOY, POST, RELEASE], SelectionSettings())
    assert {c.key for c in split.included} >= {c.key for c in whole_only.included}
    assert {"tool:deploy/deploy_service", "tool:slack/post_message"} <= {c.key for c in split.included}
    indexer.close()


@pytest.mark.slow
def test_what_the_user_added_and_removed_is_remembered_for_the_same_message_only(
    minilm: EmbeddingBackend,
) -> None:
    indexer = Indexer(lambda: minilm)
    message = "make this sane: ^(\\d{3})-?(\\d{4})$"
    before = indexer.select(message, [RULE, RELEASE])
    assert "rule:regex-style" not in {c.key for c in before.included}
    taught = [dataclasses.replace(RULE, learned=(message,)), RELEASE]
    again = indexer.select(message, taught)
    [learned] = [c for c in again.included if c.key == "rule:regex-style"]
    assert learned.via == "learned"
    # A different request is not affected.
    other = indexer.select("how do releases go out?", taught)
    assert "rule:regex-style" not in {c.key for c in other.included}
    # Removed after the message: not selected again for it, and the reason says why.
    wanted = "how do releases go out to production?"
    assert "rule:release-process" in {c.key for c in indexer.select(wanted, [RULE, RELEASE]).included}
    avoided = indexer.select(wanted, [RULE, dataclasses.replace(RELEASE, avoid=(wanted,))])
    assert "rule:release-process" not in {c.key for c in avoided.included}
    assert (
        next(c for c in avoided.candidates if c.key == "rule:release-process").reason == "removed_for_similar"
    )
    indexer.close()


def test_a_large_batch_is_embedded_in_slices_each_saved_and_reported(tmp_path: Path) -> None:
    from indexer.index import EMBED_SLICE
    from tests.support.indexer_fakes import CraftedBackend

    backend = CraftedBackend({})
    indexer = Indexer(lambda: backend, cache_dir=tmp_path)
    reported: list[tuple[int, int]] = []
    indexer.progress = lambda done, total: reported.append((done, total))
    documents = [Document(f"rule:r{i}", "rule", f"r{i}", f"rule number {i}", f"text {i}") for i in range(600)]
    timings = indexer.index(documents)
    total = timings.embedded
    assert total > EMBED_SLICE and reported[-1] == (total, total)
    assert [done for done, _ in reported] == sorted(
        {min(total, k) for k in range(EMBED_SLICE, total + EMBED_SLICE, EMBED_SLICE)}
    )
    indexer.close()
    # Saved slice by slice: a new process finds every vector on disk.
    again = Indexer(lambda: CraftedBackend({}), cache_dir=tmp_path)
    assert again.index(documents).from_disk == total
    again.close()
