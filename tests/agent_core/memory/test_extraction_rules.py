"""The offline extractor: facts the user states, never questions, hypotheticals, reported speech
or quoted text; every proposal quotes the message exactly."""

from __future__ import annotations

import pytest

from agent_core.memory.extraction_rules import explicit_request, extract_memories


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("remember that my cat is called Miso", ["My cat is called Miso"]),
        ("Please remember: I take my coffee black", ["I take my coffee black"]),
        ("btw we deploy on fly.io now. Can you fix the config?", ["We deploy on fly.io now"]),
        ("I prefer pytest over unittest, can you write the tests?", ["I prefer pytest over unittest"]),
        ("dana@kestrel.io is my manager", ["dana@kestrel.io is my manager"]),
        ("Priya is my new manager.", ["Priya is my new manager"]),
        (
            "My sister lives in Lyon and my brother is a dentist.",
            ["My sister lives in Lyon", "My brother is a dentist"],
        ),
        ("we moved to PostgreSQL 16 last month", ["We moved to PostgreSQL 16 last month"]),
        ("I am allergic to peanuts", ["I am allergic to peanuts"]),
        ("thanks! my deadline is friday", ["My deadline is friday"]),
    ],
)
def test_stated_facts_are_proposed_with_their_exact_words(message: str, expected: list[str]) -> None:
    proposals = extract_memories(message)
    assert [p.text for p in proposals] == expected
    assert all(p.quote in message for p in proposals)


@pytest.mark.parametrize(
    "message",
    [
        "If I were a manager I would hire more people",
        "Suppose our database was Oracle, what changes?",
        "Imagine my cat could talk",
        "is my cat called Miso?",
        "What is my manager's email",
        "my friend says my code is messy",
        "Dana told me our deadline is Friday",
        'My README says "our database is MySQL"',
        "maybe our API is too slow",
        "hello there",
        "my bad, wrong file",
        "Can you check whether our tests pass",
        "I think my code is fine",
        "You use vim, right?",
    ],
)
def test_questions_hypotheticals_and_others_words_are_not_facts(message: str) -> None:
    assert extract_memories(message) == []


def test_an_explicit_request_is_marked_and_more_important() -> None:
    proposal = explicit_request("remember that our staging server is stage-3")
    assert proposal is not None and proposal.explicit and proposal.importance == 4
    assert (
        proposal.text == "Our staging server is stage-3" and proposal.quote == "our staging server is stage-3"
    )
    assert explicit_request("do you remember my cat?") is None
    assert explicit_request("remember what I said?") is None


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("I use Neovim with lazy.nvim, how do I add a plugin?", ["I use Neovim with lazy.nvim"]),
        ("we deploy on Fridays, is that a bad idea?", ["We deploy on Fridays"]),
        ("my daughter is 7 and loves horses, any book ideas for her?", ["My daughter is 7 and loves horses"]),
        ("I don't like long meetings. Draft a short agenda", ["I don't like long meetings"]),
    ],
)
def test_a_fact_before_a_question_or_request_is_taken_apart_from_it(
    message: str, expected: list[str]
) -> None:
    proposals = extract_memories(message)
    assert [p.text for p in proposals] == expected
    assert all(p.quote in message for p in proposals)


def test_pasted_code_is_not_read_but_the_words_around_it_are() -> None:
    message = "we run Postgres 15 in prod. why is this slow?\n```sql\n-- our table is huge\nSELECT 1;\n```"
    proposals = extract_memories(message)
    assert [(p.text, p.quote) for p in proposals] == [
        ("We run Postgres 15 in prod", "we run Postgres 15 in prod")
    ]
    assert extract_memories("```\nmy cat is called Miso\n```") == []
    assert extract_memories("look:\n```\nmy cat is called Miso") == []  # an unclosed fence too
