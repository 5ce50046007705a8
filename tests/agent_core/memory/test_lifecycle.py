"""Expiry, pruning into the Forgotten list, restoring and purging."""

from __future__ import annotations

import pytest

from agent_core.memory.book import MemoryBook, MemoryDraft

from .conftest import BookFactory, Clock

pytestmark = pytest.mark.slow


def test_memories_expire_on_their_date_and_short_ones_when_unused(book: MemoryBook, clock: Clock) -> None:
    dated = book.add(
        MemoryDraft("the office is closed for renovation", expires_at=clock.now + 2 * 86400)
    ).memory
    short = book.add(MemoryDraft("I am debugging the login page", tier="short")).memory
    lasting = book.add(MemoryDraft("I am a backend developer")).memory

    clock.advance(3)
    assert [m.id for m in book.expire()] == [dated.id]
    clock.advance(30)
    assert [m.id for m in book.expire()] == [short.id]
    assert book.get(lasting.id).status == "active"
    assert book.get(dated.id).status == "expired"


def test_pinned_memories_never_expire(book: MemoryBook, clock: Clock) -> None:
    memory = book.add(MemoryDraft("always answer in British English", tier="short")).memory
    book.pin(memory.id)
    clock.advance(400)
    assert book.expire() == [] and book.get(memory.id).tier == "pinned"


def test_over_the_cap_the_least_important_and_oldest_are_pruned_and_restorable(
    make_book: BookFactory, clock: Clock
) -> None:
    book = make_book(cap_per_scope=10)
    facts = [
        "I play the cello", "my bike is a Brompton", "I drink oolong tea", "my office is on floor 4",
        "I commute by tram", "my laptop is a ThinkPad", "I run on Sundays", "my plant is a monstera",
        "I collect stamps", "my car is blue", "I learn Japanese", "my desk faces north",
    ]  # fmt: skip
    ids = []
    for i, text in enumerate(facts):
        ids.append(book.add(MemoryDraft(text, importance=5 if i < 10 else 1)).memory.id)
        clock.advance(1)

    pruned = book.prune()
    assert sorted(m.id for m in pruned) == sorted(ids[10:])
    assert all(book.get(i).status == "forgotten" for i in ids[10:])
    assert "pruned" in book.history(ids[10])[-1].detail
    book.restore(ids[10])
    assert book.get(ids[10]).status == "active"


def test_forgotten_memories_are_purged_after_ninety_days(book: MemoryBook, clock: Clock) -> None:
    memory = book.add(MemoryDraft("I use a standing desk")).memory
    book.forget(memory.id)
    clock.advance(89)
    assert book.purge() == 0
    clock.advance(2)
    assert book.purge() == 1
    assert book.find(statuses=None) == []


def test_delete_all_removes_this_agents_memories_for_good(make_book: BookFactory) -> None:
    dev, home = make_book("/agents/dev"), make_book("/agents/home")
    dev.add(MemoryDraft("our database is MySQL 8"))
    home.add(MemoryDraft("the boiler is serviced in May"))
    assert dev.delete_all() == 1
    assert dev.find(statuses=None) == [] and len(home.find()) == 1
