"""Indexing in tiers as the chat sees it: the request says which items were judged on their
description only, the bodies follow in the background, and the record survives storage."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_core.agent.schema import SelectionConfig
from agent_core.context.items import ItemRef, RequestContext, SelectionRun
from agent_core.context.selection import DESCRIPTION_ONLY, Candidate, ContextSelector
from agent_core.store._chat_rows import CONTEXT
from indexer import Indexer
from indexer.backends import EmbeddingBackend
from tests.support.tier_documents import MESSAGE, TELESCOPE, WAIT, skill_documents

pytestmark = pytest.mark.slow


def _candidates() -> list[Candidate]:
    documents = [*skill_documents(12), TELESCOPE]
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
    assert DESCRIPTION_ONLY in chosen.reason
    # The selection started the bodies in the background; once in, nothing is judged short.
    assert indexer.tiers.wait_until_done(WAIT)
    later = asyncio.run(selector.select(MESSAGE, candidates, SelectionConfig()))
    assert later.run.description_only == ()
    assert any(item.ref.name == TELESCOPE.name for item in later.items)
    assert all(DESCRIPTION_ONLY not in item.reason for item in later.items)
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

    run = SelectionRun(5, 3, 0.7, description_only=(ItemRef("skill", "pdf"), ItemRef("skill", "docx")))
    line = describe_run(RequestContext(items=(), model="ollama:llama3", selection=run))
    assert "2 items judged on the description only (bodies still indexing)" in line
    assert "judged on the description" not in describe_run(
        RequestContext(items=(), model="m", selection=SelectionRun(5, 3, 0.7))
    )
