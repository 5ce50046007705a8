"""Indexing in tiers as the chat sees it: the request says which items were judged on their
description only, the bodies follow in the background, and the record survives storage."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_core.agent.schema import SelectionConfig
from agent_core.context.items import ItemRef, RequestContext, SelectionRun
from agent_core.context.judged_short import judged_short_reason
from agent_core.context.selection import Candidate, ContextSelector
from agent_core.store._chat_rows import CONTEXT
from indexer import Indexer
from indexer.backends import EmbeddingBackend
from indexer.tiers import BodiesProgress
from tests.support.indexer_fakes import RecordingBackend
from tests.support.tier_documents import MESSAGE, TELESCOPE, WAIT, body_chunks, skill_documents

pytestmark = pytest.mark.slow


def _candidates(skills: int = 12) -> list[Candidate]:
    documents = [*skill_documents(skills), TELESCOPE]
    return [Candidate(ItemRef(d.kind, d.name), d) for d in documents]


def test_the_request_names_the_items_judged_on_their_description_only(
    minilm: EmbeddingBackend, tmp_path: Path
) -> None:
    indexer = Indexer(lambda: minilm, cache_dir=tmp_path)
    indexer.tiers.min_chunks = 20
    selector = ContextSelector(indexer)
    candidates = _candidates()
    # Judged on the description: the skill named in the message is found by its example.
    first = asyncio.run(selector.select("help with skill-003", candidates, SelectionConfig()))
    assert first.run.status == "ok"
    assert set(first.run.description_only) == {c.ref for c in candidates}
    chosen = next(item for item in first.items if item.ref.name == "skill-003")
    assert judged_short_reason(chosen.ref, still_indexing=True) in chosen.reason
    # The selection started the bodies in the background; once in, nothing is judged short.
    assert indexer.tiers.wait_until_done(WAIT)
    later = asyncio.run(selector.select(MESSAGE, candidates, SelectionConfig()))
    assert later.run.description_only == ()
    assert any(item.ref.name == TELESCOPE.name for item in later.items)
    assert all("judged on" not in item.reason for item in later.items)
    indexer.close()


def test_the_record_of_description_only_items_is_stored_and_read_back() -> None:
    run = SelectionRun(5, 3, 0.7, description_only=(ItemRef("skill", "pdf"),))
    context = RequestContext(items=(), model="ollama:llama3", selection=run)
    assert (
        CONTEXT.validate_json(CONTEXT.dump_json(context)).selection.description_only == run.description_only
    )
    # A context stored before the field existed reads back with none.
    old = CONTEXT.dump_json(RequestContext(items=(), model="m", selection=SelectionRun(5, 3, 0.7)))
    assert b',"description_only":[]' in old
    before = old.replace(b',"description_only":[]', b"")
    assert CONTEXT.validate_json(before).selection.description_only == ()


def test_view_context_says_how_many_items_were_judged_on_the_description(qtbot: object) -> None:
    from desktop.dialogs.view_context import describe_run

    short = (ItemRef("reference", "pdf"), ItemRef("rule", "docx"), ItemRef("skill", "xlsx"))
    run = SelectionRun(5, 3, 0.7, description_only=short)
    line = describe_run(RequestContext(items=(), model="ollama:llama3", selection=run))
    assert "2 items judged on the description only (bodies still indexing)" in line
    # A skill has no body: what waits is its description sentence by sentence.
    assert "1 skill judged on the whole description only (sentences still indexing)" in line
    assert "judged on the description" not in describe_run(
        RequestContext(items=(), model="m", selection=SelectionRun(5, 3, 0.7))
    )


def test_indexing_a_large_agent_ahead_embeds_the_descriptions_and_leaves_the_bodies_to_the_background(
    minilm: EmbeddingBackend, tmp_path: Path
) -> None:
    recording = RecordingBackend(minilm)
    indexer = Indexer(lambda: recording, cache_dir=tmp_path)
    indexer.tiers.min_chunks = 20
    reports: list[BodiesProgress] = []
    indexer.tiers.progress = reports.append
    selector = ContextSelector(indexer)
    candidates = _candidates()
    bodies = body_chunks([c.document for c in candidates])
    recording.bodies.clear()  # the background waits: what indexing ahead did now is seen alone
    done = asyncio.run(selector.index_ahead(candidates, SelectionConfig()))
    assert (done.items, done.bodies_left) == (13, 13)
    lacking = done.bodies_lacking  # counted item by item: two copies of a skill share some chunks
    assert lacking >= len(bodies)
    assert done.embedded > 0 and not bodies & set(recording.embedded)
    # The first message is answered now, on the descriptions, without waiting for a body.
    first = asyncio.run(selector.select("help with skill-003", candidates, SelectionConfig()))
    assert [item.ref.name for item in first.items][:1] == ["skill-003"]
    assert set(first.run.description_only) == {c.ref for c in candidates}
    assert not bodies & set(recording.embedded)
    recording.bodies.set()
    assert indexer.tiers.wait_until_done(WAIT)
    assert reports[0] == BodiesProgress(0, lacking)
    assert [r.done for r in reports] == sorted(r.done for r in reports)
    assert reports[-1] == BodiesProgress(lacking, lacking, finished=True)
    assert sum(r.finished for r in reports) == 1  # one worker, one run: the message asked for the same set
    later = asyncio.run(selector.select(MESSAGE, candidates, SelectionConfig()))
    assert later.run.description_only == ()
    assert any(item.ref.name == TELESCOPE.name for item in later.items)
    indexer.close()


def test_indexing_a_small_agent_ahead_embeds_it_whole_as_before(
    minilm: EmbeddingBackend, tmp_path: Path
) -> None:
    recording = RecordingBackend(minilm)
    indexer = Indexer(lambda: recording, cache_dir=tmp_path)  # the default threshold
    reports: list[BodiesProgress] = []
    indexer.tiers.progress = reports.append
    candidates = _candidates(2)
    done = asyncio.run(ContextSelector(indexer).index_ahead(candidates, SelectionConfig()))
    assert (done.items, done.bodies_left, done.bodies_lacking) == (3, 0, 0)
    assert body_chunks([c.document for c in candidates]) <= set(recording.embedded)
    assert done.chunks == done.embedded > 0
    assert reports == []  # nothing left for the background
    indexer.close()


def test_a_selector_that_exits_after_answering_leaves_the_bodies_unindexed(
    minilm: EmbeddingBackend, tmp_path: Path
) -> None:
    recording = RecordingBackend(minilm)
    indexer = Indexer(lambda: recording, cache_dir=tmp_path)
    indexer.tiers.min_chunks = 20
    selector = ContextSelector(indexer, bodies_in_background=False)
    candidates = _candidates()
    outcome = asyncio.run(selector.select("help with skill-003", candidates, SelectionConfig()))
    chosen = next(item for item in outcome.items if item.ref.name == "skill-003")
    assert judged_short_reason(chosen.ref, still_indexing=False) in chosen.reason
    assert indexer.tiers.wait_until_done(0)  # no background was started
    assert not body_chunks([c.document for c in candidates]) & set(recording.embedded)
    indexer.close()
