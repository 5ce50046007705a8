"""Who "my son", "my boss" or "the dog" is, as the user's own memories say.

"Gift ideas for my partner's birthday?" shares no word with "Jo's birthday is November 2", and
MiniLM does not know that Jo is the partner; the memory "my partner Jo works as a nurse" does. So
recall reads the active memories for who is who ("my son Theo", "Javier Muñoz is my new manager",
"our dog is a podenco called Pipa", "two daughters, Lucía (9) and Alba (12)") and treats a
message that names the relation as naming the people too (the entity enrichment of the memory
design notes). Only the user's own phrasings are read; nothing is guessed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from indexer import lexical_tokens

__all__ = ["Relations", "mentioned_relations", "people_in", "relations_of"]

#: relation word -> the kind of person it names. Plural and general words ("kids", "pet") name
#: every kind they cover.
_KINDS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(
        (
            "partner",
            "wife",
            "husband",
            "spouse",
            "girlfriend",
            "boyfriend",
            "fiance",
            "fiancee",
            "fiancé",
            "fiancée",
        ),
        ("partner",),
    ),
    **dict.fromkeys(("son", "sons", "boys", "boy"), ("son",)),
    **dict.fromkeys(("daughter", "daughters", "girls", "girl"), ("daughter",)),
    **dict.fromkeys(("kid", "kids", "child", "children", "baby"), ("son", "daughter", "child")),
    **dict.fromkeys(("manager", "boss", "supervisor"), ("manager",)),
    **dict.fromkeys(("mom", "mum", "mother", "mam"), ("mother",)),
    **dict.fromkeys(("dad", "father"), ("father",)),
    "parents": ("mother", "father"),
    **dict.fromkeys(("brother", "brothers"), ("brother",)),
    **dict.fromkeys(("sister", "sisters"), ("sister",)),
    **dict.fromkeys(("cat", "cats", "kitten"), ("cat",)),
    **dict.fromkeys(("dog", "dogs", "puppy"), ("dog",)),
    **dict.fromkeys(("pet", "pets"), ("cat", "dog", "pet")),
}
# Kinds a memory defines with a general word: "our baby Nora" is a child, "my pet Rex" a pet.
_DEFINES: dict[str, str] = {
    "kid": "child",
    "kids": "child",
    "child": "child",
    "children": "child",
    "baby": "child",
}

_REL = "|".join(sorted((re.escape(w) for w in _KINDS), key=len, reverse=True))
_CAP = r"[A-ZÀ-ÖØ-Þ][\w'’-]*"
_NAME = rf"{_CAP}(?:\s+{_CAP})?"
_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
# Words that may stand between "my" and the relation without changing who it is ("my padel
# partner" is not the partner).
_QUALIFIER = r"(?:(?:new|younger|older|little|big|eldest|oldest|youngest|current|two|three|four)\s+)?"
_OWNER = rf"\b(?:[Mm]y|[Oo]ur)\s+{_QUALIFIER}"

# "my son Theo", "my younger sister, Lena"
_AFTER = re.compile(rf"{_OWNER}({_REL})\s*,?\s+({_NAME})")
# "my cat is called Miso", "my manager is Dana", "our dog is a podenco called Pipa",
# "my partner's name is Jo"
_CALLED = re.compile(
    rf"{_OWNER}({_REL})(?:\s+(?:is|was)|(?:'s|’s)\s+name\s+is)\s+"
    rf"(?:(?:called|named)\s+|an?\s+[a-z]+\s+(?:called|named)\s+)?({_NAME})"
)
# "Javier Muñoz is my new manager", "dana@kestrel.io is my manager", "Jo is my partner"
_BEFORE = re.compile(rf"({_EMAIL}|{_NAME})\s+is\s+(?:now\s+)?(?:[Mm]y|[Oo]ur)\s+{_QUALIFIER}({_REL})\b")
# "two daughters, Lucía (9) and Alba (12)", "my kids: Ana, Leo and Sam"
_LIST = re.compile(rf"\b({_REL})\s*[,:]\s*((?:{_CAP}(?:\s*\(\d+\))?\s*(?:,|and|&)\s*)+{_CAP})")
_LIST_NAME = re.compile(_CAP)

# Capitalised words that start sentences or name times and places, not people.
_NOT_NAMES = frozenset(
    [
        "I",
        "I'm",
        "I've",
        "I'd",
        "I'll",
        "The",
        "A",
        "An",
        "In",
        "On",
        "At",
        "And",
        "But",
        "Or",
        "So",
        "If",
        "When",
        "We",
        "He",
        "She",
        "They",
        "It",
        "This",
        "That",
        "My",
        "Our",
        "Dr",
        "Mr",
        "Mrs",
        "Ms",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ]
)

# "my son", "our manager", "the girls", "my younger daughter's"
_MENTION = re.compile(rf"\b(?:my|our|the)\s+{_QUALIFIER}({_REL})(?:'s|’s|s')?\b", re.IGNORECASE)


@dataclass(frozen=True)
class Relations:
    """kind of person -> the name words memories give them ("son" -> {"theo"})."""

    names: dict[str, frozenset[str]]

    def named(self, kinds: Iterable[str]) -> dict[str, str]:
        """Name word -> how a reason says it ("your son Theo"), for these kinds."""
        out: dict[str, str] = {}
        for kind in kinds:
            for word in sorted(self.names.get(kind, ())):
                out.setdefault(word, f"your {kind} {word.capitalize()}")
        return out


def people_in(text: str) -> list[tuple[str, str]]:
    """(kind, name word) pairs ``text`` states: "my son Theo starts school" -> [("son", "theo")]."""
    found: list[tuple[str, str]] = []

    def add(relation: str, name: str) -> None:
        relation = relation.lower()
        kinds = (_DEFINES[relation],) if relation in _DEFINES else _KINDS.get(relation, ())
        if "@" in name:
            name = name.split("@", 1)[0]
        words = [w for w in name.split() if w not in _NOT_NAMES and w.strip("'’") not in _NOT_NAMES]
        for word in words:
            for token in lexical_tokens(word):
                for kind in kinds:
                    found.append((kind, token))

    for match in _AFTER.finditer(text):
        add(match.group(1), match.group(2))
    for match in _CALLED.finditer(text):
        add(match.group(1), match.group(2))
    for match in _BEFORE.finditer(text):
        add(match.group(2), match.group(1))
    for match in _LIST.finditer(text):
        for name in _LIST_NAME.findall(match.group(2)):
            add(match.group(1), name)
    return list(dict.fromkeys(found))


@functools.lru_cache(maxsize=65536)
def _people_cached(text: str) -> tuple[tuple[str, str], ...]:
    return tuple(people_in(text))


def relations_of(texts: Iterable[str], superseded: Iterable[str] = ()) -> Relations:
    """Who is who, from these active memory texts, and from ``superseded`` ones for the kinds of
    person no active memory names: "my partner Jo works nights", replaced by "Jo moved to day
    shifts", still says who Jo is; "my manager is Dana", replaced by "Javier is my new manager",
    no longer says who the manager is."""
    names: dict[str, set[str]] = {}
    for text in texts:
        for kind, word in _people_cached(text):
            names.setdefault(kind, set()).add(word)
    earlier: dict[str, set[str]] = {}
    for text in superseded:
        for kind, word in _people_cached(text):
            if kind not in names:
                earlier.setdefault(kind, set()).add(word)
    names.update(earlier)
    return Relations({kind: frozenset(words) for kind, words in names.items()})


def mentioned_relations(message: str) -> set[str]:
    """The kinds of person ``message`` refers to by relation ("my partner's birthday" -> partner)."""
    kinds: set[str] = set()
    for match in _MENTION.finditer(message):
        kinds.update(_KINDS.get(match.group(1).lower(), ()))
    return kinds
