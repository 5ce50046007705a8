"""Writing memories: duplicates merge, conflicts supersede (and what does not conflict stays),
consent, sensitive data, the history of every change, and transactions."""

from __future__ import annotations

import pytest

from agent_core.memory.book import MemoryBook, MemoryDraft, MemoryInputError
from agent_core.memory.records import Provenance
from agent_core.memory.store import MemoryStore

pytestmark = pytest.mark.slow


def test_the_same_fact_twice_is_one_memory_counted_twice(book: MemoryBook, store: MemoryStore) -> None:
    first = book.add(MemoryDraft("I prefer pytest over unittest", kind="preference"))
    again = book.add(
        MemoryDraft(
            "i prefer pytest over unittest.",
            kind="preference",
            provenance=Provenance("chat-9", 4, "user", "i prefer pytest over unittest."),
        )
    )
    reworded = book.add(MemoryDraft("I'd rather use pytest than unittest", kind="preference"))

    assert first.action == "added" and again.action == "merged" and reworded.action == "merged"
    rows = book.find(statuses=None)
    assert [m.id for m in rows] == [first.memory.id] and rows[0].seen_count == 3
    events = [e.event for e in store.history(first.memory.id)]
    assert events == ["created", "merged", "merged"]
    assert "chat chat-9, message 4" in store.history(first.memory.id)[1].detail


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("our database is MySQL 8", "we moved to PostgreSQL 16"),
        ("my manager is Dana", "Priya is my new manager"),
        ("I prefer tabs for indentation", "I prefer spaces for indentation"),
        ("the project deadline is March 3", "the deadline moved to March 17"),
        ("our deploys go to Heroku", "we deploy on fly.io now"),
    ],
)
def test_a_changed_fact_supersedes_the_old_one_which_is_kept(book: MemoryBook, old: str, new: str) -> None:
    before = book.add(MemoryDraft(old)).memory
    outcome = book.add(MemoryDraft(new))

    assert outcome.action == "superseded" and outcome.other is not None and outcome.other.id == before.id
    kept = book.get(before.id)
    assert kept.status == "superseded" and kept.superseded_by == outcome.memory.id
    assert [e.event for e in book.history(before.id)] == ["created", "superseded"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I like Python", "I like Rust"),
        ("my sister lives in Lyon", "my brother lives in Lyon"),
        ("we use Postgres for orders", "we use Redis for caching"),
        ("I'm vegetarian", "I have a peanut allergy"),
    ],
)
def test_memories_that_do_not_conflict_both_stay(book: MemoryBook, first: str, second: str) -> None:
    book.add(MemoryDraft(first))
    outcome = book.add(MemoryDraft(second))

    assert outcome.action == "added"
    assert sorted(m.text for m in book.find(statuses=("active",))) == sorted([first, second])


def test_a_conflict_from_the_model_is_only_proposed_until_the_user_accepts(book: MemoryBook) -> None:
    old = book.add(MemoryDraft("my manager is Dana")).memory
    outcome = book.add(MemoryDraft("Priya is my new manager"), "model", status="proposed")

    assert outcome.action == "conflict" and outcome.memory.status == "proposed"
    assert book.get(old.id).status == "active"
    book.accept(outcome.memory.id)
    assert book.get(old.id).status == "superseded" and book.get(outcome.memory.id).status == "active"


def test_rejected_proposals_stay_out(book: MemoryBook) -> None:
    proposal = book.add(MemoryDraft("I work on the billing service"), "extractor", status="proposed").memory
    book.reject(proposal.id)
    assert book.get(proposal.id).status == "rejected"
    with pytest.raises(MemoryInputError, match="not proposed"):
        book.accept(proposal.id)


def test_sensitive_data_is_never_saved_automatically_and_warns_when_typed(book: MemoryBook) -> None:
    blocked = book.add(
        MemoryDraft("my api key is sk-proj-abcdefghijklmnopqrstuv"), "model", status="proposed"
    )
    typed = book.add(MemoryDraft("the door code card is 4111 1111 1111 1111"), "user")

    assert blocked.action == "blocked" and blocked.memory is None and "API key" in blocked.warnings[0]
    assert typed.action == "added" and typed.warnings == ("it looks like it holds a payment card number",)
    assert [m.text for m in book.find()] == ["the door code card is 4111 1111 1111 1111"]


def test_edits_keep_the_old_words_in_the_history(book: MemoryBook) -> None:
    memory = book.add(MemoryDraft("my cat is called Mso")).memory
    book.edit(memory.id, "my cat is called Miso")

    event = book.history(memory.id)[-1]
    assert (event.event, event.old_text, event.new_text) == (
        "edited",
        "my cat is called Mso",
        "my cat is called Miso",
    )


def test_bad_input_is_refused_with_the_fix(book: MemoryBook) -> None:
    with pytest.raises(MemoryInputError, match="1 to 5"):
        book.add(MemoryDraft("x y z", importance=9))
    with pytest.raises(MemoryInputError, match="at most 2000"):
        book.add(MemoryDraft("word " * 600))
    with pytest.raises(MemoryInputError, match="needs some text"):
        book.add(MemoryDraft(" \t "))
    with pytest.raises(MemoryInputError, match="NUL character"):  # refused, not stripped
        book.add(MemoryDraft(" \x00 "))
    with pytest.raises(MemoryInputError, match="memory list"):
        book.forget("m-nope")


def test_another_agents_memories_are_invisible_but_global_ones_are_shared(make_book: object) -> None:
    dev = make_book("/agents/dev")  # type: ignore[operator]
    home = make_book("/agents/home")  # type: ignore[operator]
    private = dev.add(MemoryDraft("our database is MySQL 8")).memory
    shared = dev.add(MemoryDraft("my name is Sam", scope="global")).memory

    assert [m.id for m in home.find()] == [shared.id]
    with pytest.raises(MemoryInputError):
        home.forget(private.id)


def test_a_failed_transaction_writes_nothing(book: MemoryBook, store: MemoryStore) -> None:
    memory = book.add(MemoryDraft("our database is MySQL 8")).memory
    with pytest.raises(RuntimeError), store.write() as writes:
        writes.update(
            memory.__class__(**{**vars(memory), "text": "half"}), book._event(memory, "edited", "user")
        )
        raise RuntimeError("crash")
    assert store.get(memory.id).text == "our database is MySQL 8"
    assert [e.event for e in store.history(memory.id)] == ["created"]
