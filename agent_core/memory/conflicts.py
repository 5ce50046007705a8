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

# Cosine at or above which two memories with compatible values are one fact said twice.
DUPLICATE_SIMILARITY = 0.72
# A change marker ("we moved to...", "now", "no longer") needs at least this much in common...
CHANGED_SLOT_SIMILARITY = 0.35
# ...and the values that differ must be of a kind ("MySQL"/"PostgreSQL", "Berlin"/"Lisbon").
ALIKE_VALUES = 0.45
# Two single words that differ this little are one thing said two ways ("live"/"based").
SYNONYMS = 0.7
# Without a marker, only a near-identical statement with one value swapped is a change.
SWAPPED_VALUE_SIMILARITY = 0.6
# Words of the old memory given up in the new one ("not black anymore") need this much in common.
GIVEN_UP_SIMILARITY = 0.38
# Two numbers for the same thing (a personal best, a team's size, a version).
CHANGED_NUMBER_SIMILARITY = 0.55

_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
# Words that say the new statement replaces an older one. "new" counts only right before the
# thing it renews ("my new manager"), handled apart: "every new service" changes nothing.
_CHANGE_WORDS = (
    "moved|switched|migrated|changed|replaced|upgraded|downgraded|bumped|traded|transferred|"
    "now|no longer|anymore|any more|no more|instead|from now on|these days|nowadays|finally|"
    "quit|left|became|renamed|back on|back to|again|went up|went down"
)
_CHANGE = re.compile(rf"\b(?:{_CHANGE_WORDS})\b", re.IGNORECASE)
# What the new statement gives up: "not black anymore", "from Hugo to Astro", "bye Dell".
_GIVING_UP = re.compile(
    r"\b(?:not|no|never|(?:switched|moved|migrated|changed|went|away) from|from(?=\s+\S+\s+to\b)|instead of|"
    r"bye|quit|left|replaced|traded|dropped|ditched|no more|no longer)\s+(?:(?:the|a|an|my|our|his|her|"
    r"their)\s+)?([\w.'-]+)",
    re.IGNORECASE,
)
# "Lucía's", "Alba's": whose the statement is. Two different owners are two subjects.
_OWNER = re.compile(r"\b([A-Z][\w-]*)['’]s\b")
# Statements that add to what is known rather than replace it.
_ADDITIVE = re.compile(
    r"\b(?:like|likes|love|loves|enjoy|enjoys|also|too|as well|another|speak|speaks|know|knows|"
    r"play|plays|collect|collects|follow|follows|read|reads|watch|watches|visited|have been|"
    r"learning|learn|learns|studying|study|studies)\b",
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
        word = word.removesuffix("'s")
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
    """How alike the words only one memory has are (a change of value keeps the kind of thing:
    two databases, two cities, two editors). Word pairs count only when each side has a word or
    two: in longer texts some pair is always alike by chance."""
    new = [w for w in only_new if w not in _SLOT_VERBS] or only_new
    old = [w for w in only_old if w not in _SLOT_VERBS] or only_old
    best = alike(" ".join(new), " ".join(old))
    if min(len(new), len(old)) <= 2:
        for a in new[:8]:
            for b in old[:8]:
                best = max(best, alike(a, b))
    return best


def _given_up(new: str, old_words: list[str]) -> list[str]:
    """The old memory's words the new one says are over ("not black anymore", "from Hugo to Astro")."""
    phrases = " ".join(match.group(1).lower() for match in _GIVING_UP.finditer(new))
    said = {_stem(w) for w in _words(phrases)}
    return [
        w for w in dict.fromkeys(old_words) if _stem(w) in said and not w.isdigit() and w not in _SLOT_VERBS
    ]


def _stem(word: str) -> str:
    """Crude, for telling "sailing" and "sail", "living" and "lives" are one word."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word.removesuffix("e") if len(word) > 3 else word


def _qualifiers_differ(new: str, old: str, shared: set[str], only_new: set[str], only_old: set[str]) -> str:
    """In two short statements, a thing both name qualified differently ("the staging cluster"
    / "the production cluster", "the Q3 review" / "the Q4 review"): two things, not one changed."""
    new_words, old_words = _words(new), _words(old)
    if max(len(new_words), len(old_words)) > 8:
        return ""
    for word in sorted(shared):
        before_new, before_old = _before(new_words, word), _before(old_words, word)
        if before_new in only_new and before_old in only_old and _stem(before_new) != _stem(before_old):
            return word
    return ""


def _before(words: list[str], word: str) -> str:
    """The content word right before ``word`` (not a number, not a shared verb), or ""."""
    at = words.index(word)
    if at == 0:
        return ""
    previous = words[at - 1]
    return "" if previous.isdigit() or previous in _SLOT_VERBS or previous in _CHANGE_VERBS else previous


_CHANGE_VERBS = frozenset(
    ["moved", "switched", "migrated", "changed", "cut", "bumped", "upgraded", "got", "hit"]
)


def _renewed(new: str, shared: set[str]) -> list[str]:
    """ "my new manager": what the new statement renews of what the old one names."""
    return sorted(w for w in shared if re.search(rf"\bnew\s+{re.escape(w)}", new, re.IGNORECASE))


def _compatible_numbers(new: set[str], old: set[str], changed: bool, similarity: float) -> bool:
    """Numbers that can belong to one fact said again: the new one adds none ("birthday is April
    19" after "13th birthday is 19 April"), or brings some to a nearly identical statement. A
    merge keeps the old words, so new numbers in a looser match would be lost."""
    if new <= old:
        return not changed or new == old
    return not old and similarity >= 0.85


def judge(
    new: str,
    old: str,
    similarity: float,
    *,
    same_kind: bool = True,
    value_similarity: ValueSimilarity | None = None,
) -> Verdict:
    """How ``new`` relates to ``old``, given their embeddings' cosine ``similarity``.

    A conflict needs evidence that one value replaced another: a change marker with values of
    one kind, words of the old memory given up in the new one, two numbers for the same thing,
    or one value swapped in an otherwise identical statement. Anything less is two facts: a
    wrong supersede hides a true memory, a missed one only leaves an old one beside the new.
    ``value_similarity`` compares the words only one of them has ("MySQL 8" / "PostgreSQL 16").
    """
    if _normal(new) == _normal(old):
        return Verdict("duplicate", "the same words")
    new_numbers, old_numbers = set(_NUMBER.findall(new)), set(_NUMBER.findall(old))
    new_words, old_words = _words(new), _words(old)
    new_stems, old_stems = {_stem(w) for w in new_words}, {_stem(w) for w in old_words}
    only_new = [w for w in dict.fromkeys(new_words) if _stem(w) not in old_stems and not w.isdigit()]
    only_old = [w for w in dict.fromkeys(old_words) if _stem(w) not in new_stems and not w.isdigit()]
    shared = set(new_words) & set(old_words)
    changed = bool(_CHANGE.search(new)) or bool(_renewed(new, shared))
    # Given up in the new one and not already in the old one ("never tabs" / "no tabs ever").
    given_up = [w for w in _given_up(new, old_words) if w not in _given_up(old, old_words)]
    differing = set(only_new) | set(only_old)
    if differing and differing <= _RELATIONS:
        return Verdict("distinct", "about another person")
    owners_new, owners_old = set(_OWNER.findall(new)), set(_OWNER.findall(old))
    if owners_new and owners_old and not owners_new & owners_old:
        return Verdict(
            "distinct", f"about {', '.join(sorted(owners_new))}, not {', '.join(sorted(owners_old))}"
        )
    if given_up and similarity >= GIVEN_UP_SIMILARITY:
        return Verdict("conflict", f"no longer {', '.join(given_up)}")
    renewed = _renewed(new, shared)
    if renewed and similarity >= CHANGED_SLOT_SIMILARITY and len(differing) <= 6:
        return Verdict("conflict", f"a new {', '.join(renewed)}")
    values = (
        _value_alikeness(only_new, only_old, value_similarity)
        if value_similarity is not None and only_new and only_old
        else 0.0
    )
    # A long pair has many words to match by chance: it must be closer to count as one slot.
    needed = CHANGED_SLOT_SIMILARITY if len(differing) <= 8 else 0.5
    if changed and similarity >= needed and values >= ALIKE_VALUES + (0.15 if len(differing) > 5 else 0.0):
        return Verdict("conflict", f"a change of the same thing ({values:.2f} alike values)")
    if changed and similarity >= 0.7 and 1 <= len(only_new) <= 3 and 1 <= len(only_old) <= 3:
        return Verdict("conflict", f"{', '.join(sorted(shared))} is now {' '.join(only_new)}")
    additive = bool(_ADDITIVE.search(new) and _ADDITIVE.search(old))
    swapped_new = [w for w in only_new if w not in _SLOT_VERBS and w != "name"]
    swapped_old = [w for w in only_old if w not in _SLOT_VERBS and w != "name"]
    if (
        len(swapped_new) == len(swapped_old) == 1
        and len(only_new) == len(only_old) == 1
        and len(shared) >= 2
        and similarity >= SWAPPED_VALUE_SIMILARITY
        and values < SYNONYMS
        and not additive
    ):
        return Verdict("conflict", f"{only_new[0]} instead of {only_old[0]}")
    if similarity >= DUPLICATE_SIMILARITY and _compatible_numbers(
        new_numbers, old_numbers, changed, similarity
    ):
        return Verdict("duplicate", f"the same fact ({similarity:.2f} alike)")
    qualified = "" if changed else _qualifiers_differ(new, old, shared, set(only_new), set(only_old))
    if qualified:
        return Verdict("distinct", f"two different {qualified}")
    if not same_kind and not changed:
        return Verdict("distinct", "a different kind of memory")
    subject_new, subject_old = _subject(new), _subject(old)
    if subject_new and subject_old and subject_new not in old and subject_old not in new:
        return Verdict("distinct", f"about {subject_new}, not {subject_old}")
    slot = _changed_slot(new, shared)
    if slot and similarity >= CHANGED_SLOT_SIMILARITY:
        return Verdict("conflict", f"{slot} changed")
    if changed and similarity >= 0.5 and shared and 1 <= len(only_new) <= 3 and 1 <= len(only_old) <= 3:
        return Verdict("conflict", f"{', '.join(sorted(shared))} is now {' '.join(only_new)}")
    names_new, names_old = _names(new), _names(old)
    names_differ = bool(names_new and names_old and not names_new & names_old)
    if (
        new_numbers
        and old_numbers
        and new_numbers != old_numbers
        and similarity >= CHANGED_NUMBER_SIMILARITY
        and len(shared) >= 2
        and not names_differ
    ):
        return Verdict("conflict", f"another number for {', '.join(sorted(shared))}")
    if (
        not additive
        and similarity >= SWAPPED_VALUE_SIMILARITY
        and 1 <= len(only_new) <= 2
        and 1 <= len(only_old) <= 2
        and (values >= ALIKE_VALUES or len(shared) >= 2)
    ):
        return Verdict("conflict", f"another value for {', '.join(sorted(shared))} ({similarity:.2f} alike)")
    if additive:
        return Verdict("distinct", "adds to the other rather than replacing it")
    return Verdict("distinct", f"about something else ({similarity:.2f} alike)")


# "we moved the main database to …", "I switched the editor theme to …": the slot between.
_CHANGED_TO = re.compile(
    r"\b(?:switched|moved|migrated|changed|upgraded|downgraded|bumped|cut|reduced|raised|increased|lowered)"
    r"\s+([^.,;]*?)\s+to\b",
    re.IGNORECASE,
)


def _changed_slot(new: str, shared: set[str]) -> str:
    """The thing the new statement says was changed, when the old one names it too."""
    if re.search(r"\bfrom\s+\S+\s+to\b", new, re.IGNORECASE):
        return ""  # "from X to Y" names the old value: the old memory must hold it (see _given_up)
    for match in _CHANGED_TO.finditer(new):
        named = [w for w in _words(match.group(1)) if w in shared]
        if named:
            return " ".join(named)
    return ""


_LEADING_NAME = re.compile(r"^([A-Z][\w-]+)(?:['’]s)?\b")


def _subject(text: str) -> str:
    """The name a statement starts with ("Alba joined…", "Lucía's school…"), or ""."""
    found = _LEADING_NAME.match(text.strip())
    return found.group(1) if found and found.group(1).lower() not in _STOP | {"i", "my", "our", "we"} else ""


_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-zà-ÿ]+")


def _names(text: str) -> set[str]:
    """Capitalised words past the start of the text: names of people and places, mostly."""
    return set(_NAME.findall(text))
