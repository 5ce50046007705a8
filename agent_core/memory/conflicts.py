"""Is a new memory the same fact as an old one, a change of it, or another fact?

Offline and deterministic, from the two texts and their embeddings' cosine similarity:

- **duplicate**: the same words, or nearly the same meaning with the same values (numbers,
  versions, names). Merged: nothing is deleted, the old memory's count and history grow.
- **conflict**: the same slot with another value ("our database is MySQL 8" then "we moved to
  PostgreSQL 16"; "my manager is Dana" then "Priya is my new manager"). Offered as superseding
  the old memory; the old one is kept, marked superseded, and never recalled again.
- **distinct**: both stay. Statements that add rather than replace ("I like Python" / "I like
  Rust") and ones about another subject ("my sister lives in Lyon" / "my brother lives in Lyon").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

__all__ = ["Relation", "Verdict", "judge"]

Relation = Literal["duplicate", "conflict", "distinct"]

# Cosine at or above which two memories with the same values are one fact said twice.
DUPLICATE_SIMILARITY = 0.9
# Close enough in meaning, with a word in common, to be about the same slot.
SLOT_SIMILARITY = 0.45
# With an explicit change marker ("we moved to...", "now", "no longer") a looser match will do.
CHANGED_SLOT_SIMILARITY = 0.3

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_CHANGE_WORDS = (
    "moved|switched|migrated|changed|replaced|upgraded|downgraded|now|no longer|anymore|any more|new|"
    "instead|from now on|these days|nowadays|left|quit|joined|started|became|renamed"
)
_CHANGE = re.compile(rf"\b(?:{_CHANGE_WORDS})\b", re.IGNORECASE)
# Statements that add to what is known rather than replace it.
_ADDITIVE = re.compile(
    r"\b(?:like|likes|love|loves|enjoy|enjoys|also|too|as well|another|speak|speaks|know|knows|"
    r"play|plays|collect|collects|follow|follows|read|reads|watch|watches|visited|have been)\b",
    re.IGNORECASE,
)
# Who a statement is about: when only these words differ, the memories are about two people.
_RELATIONS = frozenset(
    [
        "sister",
        "brother",
        "mother",
        "mom",
        "mum",
        "father",
        "dad",
        "son",
        "daughter",
        "wife",
        "husband",
        "partner",
        "boyfriend",
        "girlfriend",
        "friend",
        "colleague",
        "coworker",
        "cousin",
        "aunt",
        "uncle",
        "grandma",
        "grandmother",
        "grandpa",
        "grandfather",
        "niece",
        "nephew",
        "boss",
        "teammate",
        "neighbour",
        "neighbor",
        "kid",
        "child",
        "baby",
        "dog",
        "cat",
    ]
)
# Words that carry neither the slot nor the value: grammar, time, and the change markers themselves.
_NOISE = frozenset(
    [
        "my",
        "our",
        "we",
        "us",
        "me",
        "is",
        "are",
        "was",
        "were",
        "the",
        "a",
        "an",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "it",
        "its",
        "this",
        "that",
        "there",
        "be",
        "been",
        "am",
        "will",
        "would",
        "should",
        "just",
        "really",
        "currently",
        "still",
        "last",
        "month",
        "week",
        "year",
        "ago",
        "today",
        "yesterday",
        "recently",
        "since",
        "then",
        "move",
        "switch",
        "migrate",
        "change",
        "replace",
        "upgrade",
        "downgrade",
        "now",
        "longer",
        "anymore",
        "new",
        "instead",
        "left",
        "quit",
        "join",
        "start",
        "became",
        "rename",
        "day",
    ]
)

_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "i'm",
        "i've",
        "it's",
        "of",
        "or",
        "so",
        "the",
        "their",
        "them",
        "they",
        "this",
        "those",
        "to",
        "too",
        "very",
        "was",
        "we're",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
        "you",
        "your",
    ]
)

ValueSimilarity = Callable[[str, str], float]


@dataclass(frozen=True)
class Verdict:
    relation: Relation
    reason: str  # in words for the user ("same fact", "another value for the same thing"...)


_WORD = re.compile(r"[^\W_]+(?:[.'][^\W_]+)*")


def _words(text: str) -> list[str]:
    """Content words, whole (not split at camelCase as the lexical index does: "MySQL" and
    "PostgreSQL" are two values, not both "sql"), lower-cased, plurals folded."""
    words = []
    for word in _WORD.findall(text.lower()):
        if word in _NOISE or word in _STOP or (len(word) < 2 and not word.isdigit()):
            continue
        if len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        words.append(word)
    return words


def _normal(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


# Verbs name the slot, not the value: "I live in Berlin" / "I moved to Lisbon" compare Berlin, Lisbon.
_SLOT_VERBS = frozenset(
    ["use", "live", "work", "prefer", "like", "go", "run", "deploy", "call", "named", "called"]
)


def _value_alikeness(only_new: list[str], only_old: list[str], alike: ValueSimilarity) -> float:
    """How alike the words only one memory has are: the best of the two phrases and of word pairs
    (a change of value keeps the kind of thing: two databases, two cities, two editors)."""
    new = [w for w in only_new if w not in _SLOT_VERBS] or only_new
    old = [w for w in only_old if w not in _SLOT_VERBS] or only_old
    best = alike(" ".join(new), " ".join(old))
    for a in new[:3]:
        for b in old[:3]:
            best = max(best, alike(a, b))
    return best


def judge(
    new: str,
    old: str,
    similarity: float,
    *,
    same_kind: bool = True,
    value_similarity: ValueSimilarity | None = None,
) -> Verdict:
    """How ``new`` relates to ``old``, given their embeddings' cosine ``similarity``.

    ``value_similarity`` compares the words only one of them has ("MySQL 8" / "PostgreSQL 16"): a
    change of value keeps the kind of thing ("two databases"), a different fact does not.
    """
    if _normal(new) == _normal(old):
        return Verdict("duplicate", "the same words")
    new_numbers, old_numbers = set(_NUMBER.findall(new)), set(_NUMBER.findall(old))
    new_words, old_words = _words(new), _words(old)
    only_new = [w for w in dict.fromkeys(new_words) if w not in old_words and not w.isdigit()]
    only_old = [w for w in dict.fromkeys(old_words) if w not in new_words and not w.isdigit()]
    shared = set(new_words) & set(old_words)
    numbers_differ = new_numbers != old_numbers
    if not numbers_differ and (
        similarity >= DUPLICATE_SIMILARITY or (not only_new and not only_old and similarity >= 0.8)
    ):
        return Verdict("duplicate", f"the same fact ({similarity:.2f} alike)")
    changed = bool(_CHANGE.search(new))
    if not same_kind and not changed:
        return Verdict("distinct", "a different kind of memory")
    if (set(only_new) | set(only_old)) and set(only_new) | set(only_old) <= _RELATIONS and not numbers_differ:
        return Verdict("distinct", "about another person")
    if not changed and _ADDITIVE.search(new) and _ADDITIVE.search(old):
        return Verdict("distinct", "adds to the other rather than replacing it")
    if numbers_differ and shared and similarity >= 0.5 and (not only_new or not only_old or changed):
        return Verdict("conflict", f"another number for {', '.join(sorted(shared))}")
    if not only_new or not only_old:
        # One says everything the other does and more: a refinement, kept beside it.
        return Verdict("distinct", "one adds detail to the other")
    values = _value_alikeness(only_new, only_old, value_similarity) if value_similarity else 0.0
    if shared and similarity >= SLOT_SIMILARITY and values >= 0.25:
        return Verdict("conflict", f"another value for {', '.join(sorted(shared))} ({similarity:.2f} alike)")
    if changed and similarity >= CHANGED_SLOT_SIMILARITY and (shared or values >= 0.35):
        return Verdict("conflict", f"a change of the same thing ({similarity:.2f} alike)")
    if changed and values >= 0.45 and similarity >= 0.25:
        return Verdict("conflict", f"a change of the same kind of thing ({values:.2f} alike)")
    return Verdict("distinct", f"about something else ({similarity:.2f} alike)")
