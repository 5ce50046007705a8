"""Each labelled pair of benchmarks/memory/conflicts.jsonl, old then new through a real MemoryBook:
a conflict supersedes (a supersede event), a duplicate leaves one row, distinct facts two active rows.
The pairs the judge gets wrong today are strict xfails: fix the judge, then drop the mark."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_core.memory.book import MemoryBook, MemoryDraft

from .conftest import BookFactory

pytestmark = pytest.mark.slow

PAIRS_FILE = Path(__file__).resolve().parents[3] / "benchmarks" / "memory" / "conflicts.jsonl"
# The judge's remaining mistakes: each turns red once fixed, and its mark must then go.
WRONG = {
    "c02": "'I live in Berlin again, we moved back': the old city is never named in the new memory",
    "c11": "a phone change told by the platform ('away from Android') and not the old phone's name",
}
OLD_AT, NEW_AT = 1_750_000_000.0, 1_750_000_000.0 + 30 * 86400


def _pairs() -> list[Any]:
    rows = [json.loads(line) for line in PAIRS_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        pytest.param(
            row,
            id=row["id"],
            marks=pytest.mark.xfail(strict=True, reason=WRONG[row["id"]]) if row["id"] in WRONG else (),
        )
        for row in rows
    ]


def test_every_mistake_listed_is_a_pair_of_the_set() -> None:
    ids = {
        json.loads(line)["id"] for line in PAIRS_FILE.read_text(encoding="utf-8").splitlines() if line.strip()
    }
    assert set(WRONG) <= ids


@pytest.mark.parametrize("pair", _pairs())
def test_a_labelled_pair_is_judged_as_labelled(make_book: BookFactory, pair: dict[str, Any]) -> None:
    book: MemoryBook = make_book()
    kind = pair.get("kind", "fact")
    old = book.add(MemoryDraft(pair["old"], kind=kind, created_at=OLD_AT), "user").memory
    assert old is not None
    outcome = book.add(MemoryDraft(pair["new"], kind=kind, created_at=NEW_AT), "user")
    rows = book.find(statuses=None)
    active = [m for m in rows if m.status == "active"]
    if pair["expected"] == "conflict":
        assert outcome.action == "superseded"
        assert [m.text for m in active] == [pair["new"]]
        assert "superseded" in [e.event for e in book.store.history(old.id)]
    elif pair["expected"] == "duplicate":
        assert outcome.action == "merged"
        assert len(rows) == 1
    else:
        assert outcome.action == "added"
        assert sorted(m.text for m in active) == sorted([pair["old"], pair["new"]])
