"""Who "my son" or "my boss" is, read from the user's own memories (no model needed)."""

from __future__ import annotations

import pytest

from agent_core.memory.people import mentioned_relations, people_in, relations_of


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my partner Jo works as a nurse on night shifts", [("partner", "jo")]),
        ("my cat is called Miso", [("cat", "miso")]),
        ("our dog is a podenco called Pipa", [("dog", "pipa")]),
        ("Javier Muñoz is my new manager since May", [("manager", "javier"), ("manager", "muñoz")]),
        ("dana@kestrel.io is my manager", [("manager", "dana")]),
        ("we have two daughters, Lucía (9) and Alba (12)", [("daughter", "lucía"), ("daughter", "alba")]),
        ("my younger sister, Lena, lives in Lyon", [("sister", "lena")]),
        ("my partner's name is Sam", [("partner", "sam")]),
    ],
)
def test_the_people_a_memory_names_by_relation(text: str, expected: list[tuple[str, str]]) -> None:
    assert people_in(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "my padel partner is Guille from the team next door",  # not the partner
        "my manager wants weekly status updates on Fridays",  # names nobody
        "my son starts school in September",  # a month is not a name
        "my wife is an architect",
        "I work with Dana on the billing service",
    ],
)
def test_memories_that_name_nobody_by_relation_give_nothing(text: str) -> None:
    assert people_in(text) == []


def test_a_message_refers_to_people_by_relation() -> None:
    assert mentioned_relations("gift ideas for my partner's birthday?") == {"partner"}
    assert mentioned_relations("a note to my younger daughter's teacher") == {"daughter"}
    assert mentioned_relations("who can take care of the girls on wednesday?") == {"daughter"}
    assert mentioned_relations("plan something for the kids") == {"son", "daughter", "child"}
    assert mentioned_relations("what is a partner program?") == set()
    assert mentioned_relations("sort this list of numbers") == set()


def test_relations_gather_every_name_of_a_kind() -> None:
    relations = relations_of(["my son Theo starts school", "our son Theo is 5", "my cat is called Miso"])
    assert relations.names == {"son": frozenset({"theo"}), "cat": frozenset({"miso"})}
    assert relations.named({"son", "daughter"}) == {"theo": "your son Theo"}
