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
from dataclasses import dataclass
from typing import Literal

from indexer import lexical_tokens

__all__ = ["Relation", "Verdict", "judge"]

Relation = Literal["duplicate", "conflict", "distinct"]

# Cosine at or above which two memories with the same values are one fact said twice.
DUPLICATE_SIMILARITY = 0.9
# Close enough in meaning to be about the same slot; below it two memories are unrelated.
SLOT_SIMILARITY = 0.55
# With an explicit change marker ("we moved to...", "now", "no longer") a looser match will do.
CHANGED_SLOT_SIMILARITY = 0.42

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_CHANGE = re.compile(
    r"\b(?:moved|switched|migrated|changed|replaced|upgraded|downgraded|now|no longer|anymore|"
    r"any more|new|instead|from now on|these days|nowadays|not .* any ?more|left|quit|joined)\b",
    re.IGNORECASE,
)
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
        "manager",
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
_FUNCTION_WORDS = frozenset(
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
        "use",
        "uses",
        "using",
    ]
)


@dataclass(frozen=True)
class Verdict:
    relation: Relation
    reason: str  # in words for the user ("same fact", "another value for the same thing"...)


def _content(text: str) -> set[str]:
    return {t for t in lexical_tokens(text) if t not in _FUNCTION_WORDS}


def _normal(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def judge(new: str, old: str, similarity: float, *, same_kind: bool = True) -> Verdict:
    """How ``new`` relates to ``old``, given their embeddings' cosine ``similarity``."""
    if _normal(new) == _normal(old):
        return Verdict("duplicate", "the same words")
    new_numbers, old_numbers = set(_NUMBER.findall(new)), set(_NUMBER.findall(old))
    new_words, old_words = _content(new), _content(old)
    only_new, only_old = new_words - old_words, old_words - new_words
    if new_numbers == old_numbers and (
        similarity >= DUPLICATE_SIMILARITY or (not only_new and not only_old and similarity >= 0.8)
    ):
        return Verdict("duplicate", f"the same fact ({similarity:.2f} alike)")
    changed = bool(_CHANGE.search(new))
    threshold = CHANGED_SLOT_SIMILARITY if changed else SLOT_SIMILARITY
    if not same_kind and not changed:
        return Verdict("distinct", "a different kind of memory")
    if similarity < threshold:
        return Verdict("distinct", f"about something else ({similarity:.2f} alike)")
    if (only_new | only_old) and (only_new | only_old) <= _RELATIONS and new_numbers == old_numbers:
        return Verdict("distinct", "about another person")
    if not changed and (_ADDITIVE.search(new) and _ADDITIVE.search(old)):
        return Verdict("distinct", "adds to the other rather than replacing it")
    if not (only_new or new_numbers - old_numbers) or not (only_old or old_numbers - new_numbers):
        # One says everything the other does and more: a refinement, kept beside it.
        return Verdict("distinct", "one adds detail to the other")
    return Verdict("conflict", f"another value for the same thing ({similarity:.2f} alike)")
