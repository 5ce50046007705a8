"""Recall per message: only what matches, pinned always, never superseded, expired, proposed or
forgotten memories, chat-only memories only in their chat, a token budget, reasons."""

from __future__ import annotations

import pytest

from agent_core.agent.schema import MemoryConfig
from agent_core.memory.book import MemoryBook, MemoryDraft
from agent_core.memory.recall import Recall, recall
from indexer import Indexer

from .conftest import Clock

pytestmark = pytest.mark.slow


def recalled(
    book: MemoryBook, embedder: Indexer, message: str, session: str | None = None, **config: object
) -> Recall:
    vector = embedder.embed([message])[0]
    settings = book.config.model_copy(update=config) if config else book.config
    return recall(book.index, message, vector, settings, session_id=session, now=book._now())


def texts(result: Recall) -> list[str]:
    return [r.memory.text for r in result.recalled]


@pytest.fixture
def filled(book: MemoryBook) -> MemoryBook:
    for text, kind in [
        ("our database is PostgreSQL 16", "project"),
        ("my cat is called Miso", "fact"),
        ("I prefer pytest over unittest", "preference"),
        ("dana@kestrel.io is my manager", "person"),
        ("I am allergic to peanuts", "fact"),
    ]:
        book.add(MemoryDraft(text, kind=kind))
    return book


def test_a_matching_message_recalls_the_memory_with_the_reason(filled: MemoryBook, embedder: Indexer) -> None:
    result = recalled(filled, embedder, "what is my cat called?")
    assert texts(result) == ["my cat is called Miso"]
    assert result.recalled[0].reason.startswith("matched 'cat', 'call'")
    assert "importance 3" in result.recalled[0].reason


def test_a_message_needing_no_memory_recalls_nothing(filled: MemoryBook, embedder: Indexer) -> None:
    assert texts(recalled(filled, embedder, "what's the capital of France?")) == []


def test_superseded_forgotten_proposed_and_expired_memories_are_never_recalled(
    filled: MemoryBook, embedder: Indexer, clock: Clock
) -> None:
    filled.add(MemoryDraft("we moved to MySQL 9"))  # supersedes PostgreSQL 16
    filled.add(MemoryDraft("our database backups run nightly"), "model", status="proposed")
    cat = next(m for m in filled.find() if "Miso" in m.text)
    filled.forget(cat.id)
    filled.add(MemoryDraft("the database is read-only this week", expires_at=clock.now + 3600))
    clock.advance(1)

    database = texts(recalled(filled, embedder, "which database do we use?"))
    assert "our database is PostgreSQL 16" not in database and "we moved to MySQL 9" in database
    assert "our database backups run nightly" not in database
    assert "the database is read-only this week" not in database
    assert texts(recalled(filled, embedder, "what is my cat called?")) == []


def test_pinned_memories_are_always_recalled(filled: MemoryBook, embedder: Indexer) -> None:
    pinned = filled.add(MemoryDraft("always answer in British English")).memory
    filled.pin(pinned.id)
    result = recalled(filled, embedder, "what's the capital of France?")
    assert texts(result) == ["always answer in British English"]
    assert result.recalled[0].reason.startswith("pinned")


def test_chat_and_working_memories_are_recalled_only_in_their_chat(
    book: MemoryBook, embedder: Indexer
) -> None:
    book.add(MemoryDraft("this chat is about the Q3 report", scope="chat", session_id="chat-1"))
    book.add(MemoryDraft("the Q3 report draft is in report.docx", tier="working", session_id="chat-1"))
    assert len(texts(recalled(book, embedder, "how is the Q3 report going?", "chat-1"))) == 2
    assert texts(recalled(book, embedder, "how is the Q3 report going?", "chat-2")) == []


def test_the_budget_limits_what_is_recalled_and_says_so(book: MemoryBook, embedder: Indexer) -> None:
    for text in [
        "I use Python 3.12 at work",
        "my Python projects use poetry",
        "I write Python type hints everywhere",
    ]:
        book.add(MemoryDraft(text))
    result = recalled(book, embedder, "set up a new Python project for me", max_recalled=1)
    assert len(result.recalled) == 1
    assert any("budget" in miss.reason for miss in result.near_misses)


def test_nothing_is_recalled_with_a_zero_budget(filled: MemoryBook, embedder: Indexer) -> None:
    assert texts(recalled(filled, embedder, "what is my cat called?", max_tokens=0)) == []


def test_a_memory_excluded_for_the_chat_is_not_recalled(filled: MemoryBook, embedder: Indexer) -> None:
    cat = next(m for m in filled.find() if "Miso" in m.text)
    vector = embedder.embed(["what is my cat called?"])[0]
    result = recall(
        filled.index, "what is my cat called?", vector, MemoryConfig(), session_id=None, excluded={cat.id}
    )
    assert result.recalled == ()


def test_a_message_that_needs_a_facet_recalls_the_memories_most_about_it(
    filled: MemoryBook, embedder: Indexer
) -> None:
    from agent_core.memory.facets import FacetSpace

    for text in ["I'm vegetarian but I eat eggs", "I drink my coffee black", "I hate coriander"]:
        filled.add(MemoryDraft(text, kind="preference"))
    message = "what should I cook tonight? something quick"
    vector = embedder.embed([message])[0]
    facets = FacetSpace.of(embedder)
    without = recall(filled.index, message, vector, filled.config, session_id=None, now=filled._now())
    assert "I am allergic to peanuts" not in texts(without)  # no shared words, little shared meaning

    result = recall(
        filled.index, message, vector, filled.config, session_id=None, now=filled._now(), facets=facets
    )
    by_facet = [r for r in result.recalled if r.reason.startswith("needed for what you eat")]
    assert "I am allergic to peanuts" in [r.memory.text for r in by_facet]
    assert len(by_facet) <= 2  # only the memories most about the facet, not every food memory
    assert "my cat is called Miso" not in texts(result)
    # A message that needs no facet gets nothing through one.
    joke = "tell me a joke"
    none = recall(
        filled.index, joke, embedder.embed([joke])[0], filled.config, session_id=None, now=filled._now(),
        facets=facets,
    )  # fmt: skip
    assert texts(none) == []


def test_a_message_naming_a_relation_recalls_memories_about_that_person(
    book: MemoryBook, embedder: Indexer
) -> None:
    for text in [
        "my partner Jo works as a nurse on night shifts",
        "Jo's birthday is November 2",
        "my brother Karl is a dentist in Hamburg",
        "Karl's birthday is in March",
        "our database is PostgreSQL 16",
    ]:
        book.add(MemoryDraft(text))
    result = recalled(book, embedder, "gift ideas for my partner's birthday?")
    by_person = {r.memory.text: r.reason for r in result.recalled}
    assert "Jo's birthday is November 2" in by_person
    assert "about your partner Jo" in by_person["Jo's birthday is November 2"]
    assert "about" not in by_person.get("Karl's birthday is in March", "")
    # Once the partner memory is forgotten, nothing says who Jo is: no person link is made.
    partner = next(m for m in book.find() if m.text.startswith("my partner Jo"))
    book.forget(partner.id)
    after = recalled(book, embedder, "gift ideas for my partner's birthday?")
    assert not any("about your partner" in r.reason for r in after.recalled)


def test_who_someone_is_outlives_the_memory_that_said_it_being_superseded(
    book: MemoryBook, embedder: Indexer
) -> None:
    partner = book.add(MemoryDraft("my partner Jo works as a nurse on night shifts")).memory
    book.add(MemoryDraft("Jo moved to day shifts at the hospital, no more nights"), supersedes=partner.id)
    book.add(MemoryDraft("Jo's birthday is November 2"))
    book.add(MemoryDraft("my manager is Dana"))
    dana = next(m for m in book.find() if m.text == "my manager is Dana")
    book.add(MemoryDraft("Javier is my new manager"), supersedes=dana.id)
    book.add(MemoryDraft("Dana runs the Tuesday design review"))

    gift = recalled(book, embedder, "gift ideas for my partner's birthday?")
    reasons = {r.memory.text: r.reason for r in gift.recalled}
    assert "about your partner Jo" in reasons["Jo's birthday is November 2"]
    assert all(r.memory.id != partner.id for r in gift.recalled)  # still never recalled itself
    # A superseded memory says who someone is only where no active one does: Dana was the manager.
    boss = recalled(book, embedder, "what should I tell my manager about the release?")
    assert not any("your manager Dana" in r.reason for r in [*boss.recalled, *boss.near_misses])
