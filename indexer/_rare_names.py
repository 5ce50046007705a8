"""Rare names and fields: lexical evidence the embedding does not see.

Templated items ("Automate Strava tasks via ...", "Automate Fitbit tasks via ...") embed almost
alike; only a name tells them apart, and a mean-pooled vector barely notices one word in twenty.
Two signals over each item's *head* (its name and description, not its body):

- **rare names** (:meth:`HeadIndex.name_match`): how much of the distinctive part of an item's
  name the message says, a distinctive name word being one that few items (the setting
  ``rare_name_max_items``, at most :data:`RARE_MAX_ITEMS_CAP`) use in their names and
  descriptions ("strava", not "automation").
  A word of the message that no item uses may be a typo of one: within one edit of a name word of
  at least :data:`FUZZY_MIN_LENGTH` letters it counts ("calender" for "calendar").
- **the head as its own field** (:meth:`HeadIndex.head_scores`): BM25 over names and
  descriptions only, so a message that says what a description says ("Use when ...") is not
  outvoted by the long bodies of other items.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from indexer._lexical import Bm25, tokenize
from indexer._texts import index_for_typos, typos_of
from indexer.documents import Document
from indexer.ranking import SelectionSettings

__all__ = [
    "FUZZY_MAX_LENGTH",
    "FUZZY_MIN_LENGTH",
    "RARE_MAX_ITEMS_CAP",
    "HeadIndex",
    "head_bonus",
    "head_text",
]

#: The most items a name word can be used by and still count as distinctive, whatever the setting:
#: the index keeps only such words.
RARE_MAX_ITEMS_CAP = 50
#: Only words at least this long are matched within one edit, and only when their first letters
#: agree: shorter ones are too often another word ("openai" is not a typo of "openapi", nor
#: "revolution" of "evolution").
FUZZY_MIN_LENGTH = 7
#: Nor longer than this: a word has as many one-deletion variants as letters, and a pasted blob
#: (a key, base64) must not cost its length squared.
FUZZY_MAX_LENGTH = 32


def _name_words(name: str) -> str:
    return name.replace("-", " ").replace("_", " ").replace("/", " ")


def head_text(document: Document) -> str:
    """An item's head: its name (as words) and its description."""
    return f"{_name_words(document.name)} {document.description}"


@dataclass
class HeadIndex:
    """Names and descriptions of one snapshot's documents, for the two head signals."""

    documents: Sequence[Document]
    _heads: list[str] = field(init=False)
    _head_bm25: Bm25 | None = field(init=False, default=None)
    _df: Counter[str] = field(init=False)
    #: per document, its name words that could be distinctive: how many items use each, and
    #: whether its description writes it as a proper name ("Automate Strava tasks").
    _rare: list[dict[str, tuple[int, bool]]] = field(init=False)
    #: distinctive name word -> the documents whose names have it.
    _owners: dict[str, list[int]] = field(init=False)
    #: one-deletion variant -> the distinctive name words it comes from (typo tolerance).
    _variants: dict[str, set[str]] = field(init=False)

    def __post_init__(self) -> None:
        heads = self._heads = [head_text(d) for d in self.documents]
        self._df = Counter(term for head in heads for term in set(tokenize(head)))
        self._rare = []
        self._owners = {}
        self._variants = {}
        for number, document in enumerate(self.documents):
            proper = _proper_terms(document.description)
            rare = {
                term: (self._df[term], term in proper)
                for term in set(tokenize(_name_words(document.name)))
                if 0 < self._df[term] <= RARE_MAX_ITEMS_CAP
            }
            self._rare.append(rare)
            for term in rare:
                self._owners.setdefault(term, []).append(number)
                if FUZZY_MIN_LENGTH <= len(term) <= FUZZY_MAX_LENGTH:
                    index_for_typos(self._variants, term)

    def head_scores(self, message: str) -> npt.NDArray[np.float32]:
        """Each document's BM25 over its name and description, 0..1 (see :class:`Bm25`); built
        on first use (two threads at once may both build it: the same index, one kept)."""
        if self._head_bm25 is None:
            self._head_bm25 = Bm25(self._heads)
        return self._head_bm25.scores(message)

    def _said(self, message: str, max_items: int) -> set[str]:
        """The distinctive name words the message says, exactly or within one edit."""
        said: set[str] = set()
        for term in set(tokenize(message)):
            if term in self._owners:
                said.add(term)
            elif term not in self._df and FUZZY_MIN_LENGTH <= len(term) <= FUZZY_MAX_LENGTH:
                said.update(typos_of(term, self._variants))
        return {term for term in said if self._df[term] <= max_items}

    def name_match(self, message: str, max_items: int = 3, proper: bool = True) -> npt.NDArray[np.float32]:
        """Per document, the share (0..1) of its distinctive name words the message says, each
        word weighing 1 / how many items use it; a word is distinctive when at most ``max_items``
        items use it and, with ``proper``, the item's description writes it as a proper name
        (capitalised inside a sentence: "Automate Strava tasks"), so that a tool named
        ``git_show`` or a note named ``leave-policy`` is not lifted by "show" or "leave".
        0 for a document whose name has none."""
        out = np.zeros(len(self.documents), dtype=np.float32)
        for term in self._said(message, max_items):
            for number in self._owners.get(term, ()):
                words = self._rare[number]
                if proper and not words[term][1]:
                    continue
                weights = [
                    1.0 / df for df, named in words.values() if df <= max_items and (named or not proper)
                ]
                out[number] += (1.0 / self._df[term]) / sum(weights)
        return np.minimum(out, 1.0)


_SENTENCE_WORD = re.compile(r"(^|[.!?:;]\s+|\n\s*)?([^\W_][\w+#]*(?:\.[^\W_][\w+#]*)*)", re.UNICODE)


def _proper_terms(description: str) -> set[str]:
    """The terms of the words ``description`` writes with a capital inside a sentence (names:
    "Automate Strava tasks", "run CodeQL"), not the capitalised first word of a sentence."""
    terms: set[str] = set()
    for match in _SENTENCE_WORD.finditer(description):
        starts_sentence, word = match.group(1) is not None, match.group(2)
        if starts_sentence or word.islower() or not word[0].isalnum():
            continue
        terms.update(tokenize(word.lower()))
    return terms


def head_bonus(
    heads: Callable[[], HeadIndex], message: str, settings: SelectionSettings
) -> tuple[npt.NDArray[np.float32] | None, npt.NDArray[np.bool_] | None]:
    """What the head signals add to each item's score for ``message``, and which items the floor
    lifts (None when ``settings`` turn them off, so nothing is built for them)."""
    head_weight = settings.head_lexical_weight + settings.head_lexical_share * settings.lexical_weight
    if not (settings.rare_name_weight or settings.rare_name_lift or head_weight):
        return None, None
    index = heads()
    bonus = np.zeros(len(index.documents), dtype=np.float32)
    lifted = None
    if head_weight:
        bonus += head_weight * index.head_scores(message)
    if settings.rare_name_weight or settings.rare_name_lift:
        said = index.name_match(message, settings.rare_name_max_items, settings.rare_name_proper)
        bonus += settings.rare_name_weight * said
        lifted = said >= 1.0 if settings.rare_name_lift else None
    return bonus, lifted
