"""The Indexer end to end with the real MiniLM: JIT indexing, the disk cache, threads, edits."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from indexer import Document, Indexer, ModelLoadError, SelectionSettings, tool_document
from indexer.backends import EmbeddingBackend
from tests.support.indexer_fakes import RecordingBackend

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]

DOCS = (
    Document(
        "rule:commit-messages",
        "rule",
        "commit-messages",
        "How to write git commit messages",
        "Use the imperative mood in the subject line.\n\nKeep the subject under 50 characters.",
    ),
    Document(
        "rule:python-style", "rule", "python-style", "Python coding style", "Use type hints everywhere."
    ),
    Document(
        "reference:billing-api", "reference", "billing-api", "Billing API", "POST /refunds creates a refund."
    ),
    Document(
        "tool:github/create_issue",
        "tool",
        "create_issue",
        "Create a new issue in a GitHub repository",
        "title: the issue title",
        server="github",
    ),
)
ANCHOR = SelectionSettings(strategy="anchor")


def _indexer(backend: EmbeddingBackend, cache_dir: Path | None = None) -> Indexer:
    return Indexer(lambda: backend, cache_dir=cache_dir)


def test_start_loading_returns_at_once_and_readiness_follows(minilm: EmbeddingBackend) -> None:
    gate = RecordingBackend(minilm)
    gate.hold_next_embed()  # warm_up embeds, so loading stops until released
    indexer = _indexer(gate)
    indexer.start_loading()
    assert gate.entered.wait(timeout=30)
    assert not indexer.is_ready()
    gate.release.set()
    assert indexer.wait_until_ready(timeout=30)
    assert indexer.is_ready()


def test_a_failing_load_is_reported_by_select_with_a_fix() -> None:
    def broken() -> EmbeddingBackend:
        raise ModelLoadError("Embedding model file not found: /nowhere; reinstall the model packages.")

    indexer = Indexer(broken)
    indexer.start_loading()
    with pytest.raises(ModelLoadError, match="reinstall"):
        indexer.select("anything", DOCS)


def test_every_candidate_is_listed_with_score_chunk_and_reason(minilm: EmbeddingBackend) -> None:
    selection = _indexer(minilm).select("how should I word my commit message?", DOCS, ANCHOR)
    assert {c.key for c in selection.candidates} == {d.key for d in DOCS}
    best = selection.candidates[0]
    assert best.key == "rule:commit-messages"
    assert best.included
    assert best.best_chunk in {
        "commit-messages: How to write git commit messages",
        "Use the imperative mood in the subject line.",
        "Keep the subject under 50 characters.",
    }
    scores = [c.score for c in selection.candidates]
    assert scores == sorted(scores, reverse=True)
    assert selection.timings.chunks == 8


def test_hybrid_picks_nothing_for_a_message_that_needs_nothing(minilm: EmbeddingBackend) -> None:
    indexer = _indexer(minilm)
    assert indexer.select("what a lovely sunny afternoon", DOCS).included == ()
    assert len(indexer.select("what a lovely sunny afternoon", DOCS, ANCHOR).included) == 4


def test_only_missing_chunks_are_embedded(minilm: EmbeddingBackend) -> None:
    recorder = RecordingBackend(minilm)
    indexer = _indexer(recorder)
    indexer.wait_until_ready(timeout=30)
    recorder.embedded.clear()
    first = indexer.select("commit message", DOCS, ANCHOR)
    assert first.timings.embedded == 8
    edited = (dataclasses.replace(DOCS[1], text="Prefer pathlib over os.path."), *DOCS[2:], DOCS[0])
    second = indexer.select("commit message", edited, ANCHOR)
    assert second.timings.embedded == 1
    assert recorder.embedded[-2:] == ["Prefer pathlib over os.path.", "commit message"]


def test_vectors_persist_on_disk_across_indexers(minilm: EmbeddingBackend, tmp_path: Path) -> None:
    first = _indexer(minilm, tmp_path).select("refund a customer", DOCS, ANCHOR)
    recorder = RecordingBackend(minilm)
    again = _indexer(recorder, tmp_path).select("refund a customer", DOCS, ANCHOR)
    assert (again.timings.embedded, again.timings.from_disk) == (0, 8)
    assert recorder.embedded == ["warm up", "refund a customer"]
    assert [(c.key, c.score) for c in again.candidates] == [(c.key, c.score) for c in first.candidates]


def test_a_new_model_id_does_not_reuse_cached_vectors(minilm: EmbeddingBackend, tmp_path: Path) -> None:
    _indexer(minilm, tmp_path).select("refund", DOCS, ANCHOR)
    other = _indexer(RecordingBackend(minilm, model_id="another-model"), tmp_path).select(
        "refund", DOCS, ANCHOR
    )
    assert (other.timings.embedded, other.timings.from_disk) == (8, 0)


def test_concurrent_selects_agree_with_sequential_ones_and_embed_each_chunk_once(
    minilm: EmbeddingBackend,
) -> None:
    recorder = RecordingBackend(minilm)
    indexer = _indexer(recorder)
    indexer.wait_until_ready(timeout=30)
    recorder.embedded.clear()
    queries = ["commit message", "open a GitHub issue", "refund", "type hints"] * 3
    barrier = threading.Barrier(4)

    def run(query: str) -> list[tuple[str, float, bool]]:
        barrier.wait(timeout=30)
        return [(c.key, c.score, c.included) for c in indexer.select(query, DOCS).candidates]

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(run, queries[:4]))
    chunk_texts = [t for t in recorder.embedded if t not in queries]
    assert len(chunk_texts) == len(set(chunk_texts))
    fresh = _indexer(minilm)
    for query, result in zip(queries, results, strict=False):
        expected = [(c.key, c.score, c.included) for c in fresh.select(query, DOCS).candidates]
        assert [(k, inc) for k, _, inc in result] == [(k, inc) for k, _, inc in expected]
        np.testing.assert_allclose([s for _, s, _ in result], [s for _, s, _ in expected], atol=1e-5)


def test_an_item_edited_during_indexing_gives_each_call_its_own_version(minilm: EmbeddingBackend) -> None:
    recorder = RecordingBackend(minilm)
    indexer = _indexer(recorder)
    indexer.wait_until_ready(timeout=30)
    old = DOCS
    new = (dataclasses.replace(DOCS[0], text="Commit subjects are written in English."), *DOCS[1:])
    recorder.hold_next_embed()
    with ThreadPoolExecutor(max_workers=2) as pool:
        before = pool.submit(indexer.select, "commit message language", old, ANCHOR)
        assert recorder.entered.wait(timeout=30)  # the old version is being embedded now
        after = pool.submit(indexer.select, "commit message language", new, ANCHOR)
        recorder.release.set()
        old_selection, new_selection = before.result(timeout=60), after.result(timeout=60)
    chunks_of = {
        sel: {c.best_chunk for c in s.candidates if c.key == "rule:commit-messages"}
        for sel, s in (("old", old_selection), ("new", new_selection))
    }
    assert "Commit subjects are written in English." not in chunks_of["old"]
    assert chunks_of["new"] <= {
        "commit-messages: How to write git commit messages",
        "Commit subjects are written in English.",
    }
    for docs, selection in ((old, old_selection), (new, new_selection)):
        expected = _indexer(minilm).select("commit message language", docs, ANCHOR)
        np.testing.assert_allclose(
            [c.score for c in selection.candidates], [c.score for c in expected.candidates], atol=1e-5
        )


def test_duplicate_keys_are_rejected(minilm: EmbeddingBackend) -> None:
    with pytest.raises(ValueError, match="unique"):
        _indexer(minilm).select("x", (DOCS[0], DOCS[0]))


def test_works_offline_without_touching_the_hub(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        from indexer import Document, Indexer
        indexer = Indexer(cache_dir=Path(sys.argv[1]), threads=1)
        docs = [Document("rule:a", "rule", "a", "git commits", "Write good commit messages.")]
        selection = indexer.select("commit message", docs)
        assert selection.included[0].key == "rule:a", selection
        assert not any(m.startswith(("huggingface_hub", "torch", "transformers")) for m in sys.modules)
        print("ok")
        """
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


FOLLOW_UP_DOCS = (
    Document(
        "reference:deploy-runbook",
        "reference",
        "deploy-runbook",
        "How to deploy services to staging and production",
        "Deploys go through the release pipeline. Production needs an approved change; staging deploys "
        "run on every merge to main.",
    ),
    Document(
        "rule:expense-policy",
        "rule",
        "expense-policy",
        "What employees can expense",
        "Team dinners up to 40 GBP per head; client dinners need a manager's approval.",
    ),
)


def test_a_short_follow_up_borrows_its_topic_from_the_previous_message(minilm: EmbeddingBackend) -> None:
    indexer = _indexer(minilm)
    alone = indexer.select("and for staging?", FOLLOW_UP_DOCS)
    followed = indexer.select(
        "and for staging?", FOLLOW_UP_DOCS, previous_message="how do I deploy booking-api to production?"
    )
    deploy = {c.key: c.cosine for c in followed.candidates}["reference:deploy-runbook"]
    assert deploy > {c.key: c.cosine for c in alone.candidates}["reference:deploy-runbook"]
    assert [c.key for c in followed.included] == ["reference:deploy-runbook"]


def test_an_unrelated_previous_message_does_not_take_over(minilm: EmbeddingBackend) -> None:
    selection = _indexer(minilm).select(
        "can I expense a team dinner?",
        FOLLOW_UP_DOCS,
        previous_message="how do I deploy booking-api to production?",
    )
    assert [c.key for c in selection.included] == ["rule:expense-policy"]


def test_the_anchor_ignores_the_previous_message(minilm: EmbeddingBackend) -> None:
    indexer = _indexer(minilm)
    plain = indexer.select("and for staging?", FOLLOW_UP_DOCS, ANCHOR)
    followed = indexer.select(
        "and for staging?", FOLLOW_UP_DOCS, ANCHOR, previous_message="deploy to production"
    )
    assert [c.score for c in plain.candidates] == [c.score for c in followed.candidates]


def test_best_lists_near_misses_without_building_every_candidate(minilm: EmbeddingBackend) -> None:
    selection = _indexer(minilm).select("how should I word my commit message?", DOCS)
    best = selection.best(2)
    assert [c.key for c in best] == [c.key for c in selection.candidates[:2]]
    assert best[0].included and best[0].reason in ("above_include_score", "within_top_n")
    assert not best[1].included and best[1].reason in ("below_floor", "far_from_best")


def test_an_empty_document_list_selects_nothing(minilm: EmbeddingBackend) -> None:
    selection = _indexer(minilm).select("anything", [])
    assert selection.candidates == () and selection.included == ()


SCREENSHOT_DOCS = [
    tool_document(
        "browser",
        "take_screenshot",
        "Take a screenshot of the current page or a specific element",
        {"type": "object", "properties": {"width": {"type": "number", "description": "Width in pixels"}}},
    ),
    Document(
        "reference:brand",
        "reference",
        "brand",
        "Brand guidelines",
        "The logo is the kite mark plus the wordmark in lower case. Use the blue on white backgrounds.",
    ),
]


def test_a_link_in_the_message_does_not_drown_what_it_asks_for(minilm: EmbeddingBackend) -> None:
    message = "take a screenshot of https://book.kitebase.com/demo-physio/booking?step=2 at phone width"
    masked = _indexer(minilm).select(message, SCREENSHOT_DOCS)
    kept = _indexer(minilm).select(message, SCREENSHOT_DOCS, SelectionSettings(opaque_tokens="keep"))
    cosine = {c.key: c.cosine for c in masked.candidates}
    assert [c.key for c in masked.included] == ["tool:browser/take_screenshot"]
    assert (
        cosine["tool:browser/take_screenshot"]
        > {c.key: c.cosine for c in kept.candidates}["tool:browser/take_screenshot"] + 0.2
    )


TICKET_DOCS = [
    tool_document(
        "linear",
        "create_issue",
        "Creates a new Linear issue with a title and a description. Use it to file tickets for bugs or tasks.",
        {"type": "object", "properties": {"title": {"type": "string", "description": "Issue title"}}},
    ),
    Document(
        "reference:exports",
        "reference",
        "data-exports",
        "How customers export their data",
        "Clinics can export clients and appointments as CSV from Settings. Large exports are emailed.",
    ),
]


def test_a_tool_is_chosen_by_the_action_not_by_the_text_it_dictates(minilm: EmbeddingBackend) -> None:
    message = "make a linear ticket: csv export times out for clinics with more than 20k clients"
    with_head = _indexer(minilm).select(message, TICKET_DOCS)
    without = _indexer(minilm).select(message, TICKET_DOCS, SelectionSettings(action_view=False))
    assert "tool:linear/create_issue" in {c.key for c in with_head.included}
    assert "tool:linear/create_issue" not in {c.key for c in without.included}
    # The reference is still judged on the whole message.
    assert {c.key: c.cosine for c in with_head.candidates}["reference:exports"] == pytest.approx(
        {c.key: c.cosine for c in without.candidates}["reference:exports"]
    )


def test_a_greeting_selects_nothing_even_when_an_item_contains_the_word(minilm: EmbeddingBackend) -> None:
    cheatsheet = Document(
        "reference:markdown-cheatsheet",
        "reference",
        "markdown-cheatsheet",
        "Markdown syntax for notes, tables, links and code blocks",
        'Fenced code blocks name their language:\n\n```python\nprint("hello")\n```',
    )
    assert _indexer(minilm).select("hello", [cheatsheet]).included == ()
