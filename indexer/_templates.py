"""Templated families: many items whose descriptions are one sentence with another name in it.

App-automation packs hold hundreds of skills described alike ("Automate Strava tasks via ...",
"Automate Fitbit tasks via ..."). Their embeddings differ by one word, so for a message about
calendars any of them may score near the top: Google Meet for "add a meeting to my Google
Calendar", a PDF app's automation for "merge these PDFs". Yet such an item says nothing a message
could match except the app it is about. So a member of a large family is chosen only when the
message (or, for a short follow-up, the message before it) names it: says a word of its name that
few members of the family share ("calendar", not "google" or "automation"). Other items are not
affected, and a family smaller than the setting (a personal library with a few such skills) is
not a family. Tools are never gated: a server's tools are often described alike ("Create a new
{} in a GitHub repository") and a message asks for one by its action ("open a PR"), not its name.
Nor is an item the user gave example messages: those say how it is asked for.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from indexer._lexical import tokenize
from indexer._rare_names import FUZZY_MAX_LENGTH, FUZZY_MIN_LENGTH
from indexer._texts import index_for_typos, typos_of
from indexer.documents import Document

__all__ = ["NAME_SHARED_MAX", "TemplateFamilies"]

#: A name word tells a member apart when no other member of its family has it ("calendar", not
#: "google" of Google Calendar and Google Meet).
NAME_SHARED_MAX = 1
#: A sentence is a template when, with the item's own name taken out, this many words are left.
_TEMPLATE_MIN_WORDS = 2
#: Only the first sentences of a description are compared (a template is said at once).
_SENTENCES_COMPARED = 2
_SLOT = "{}"
# A sentence or clause ends at punctuation before a space ("Cal.com" is one word), a bracket or a line.
_SENTENCE_END = re.compile(r"[.!?:;]+(?=\s|$)\s*|\s*\(|\n+")
_NAME_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _name_form(word: str) -> str:
    """A word as names are compared: lower case, a plural's "s" dropped ("sheets", "sheet");
    no further stemming, so "meeting" does not name Google Meet."""
    word = word.lower()
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _name_forms(text: str) -> set[str]:
    return {_name_form(word) for word in _NAME_WORD.findall(text)}


def _said_forms(text: str) -> set[str]:
    """The name forms a message says: its words, and two or three neighbours written together
    ("google calendar" names ``googlecalendar-automation``)."""
    words = [word.lower() for word in _NAME_WORD.findall(text)]
    said = {_name_form(word) for word in words}
    for size in (2, 3):
        said.update(_name_form("".join(words[i : i + size])) for i in range(len(words) - size + 1))
    return said


def _condensed(text: str) -> str:
    return "".join(_NAME_WORD.findall(text.lower()))


def _is_name_word(word: str, name: str, name_parts: set[str]) -> bool:
    """Whether ``word`` of a description is (part of) the item's own name, however the two write
    it: "HubSpot" for ``hubspot-automation``, "Cal.com" for ``cal-com-automation``."""
    lower = word.lower()
    return lower in name_parts or (len(lower) >= 2 and not word.islower() and lower in name)


def _signatures(document: Document) -> list[str]:
    """The document's first sentences with its own name's words replaced by a slot; only those
    that had the name in them and keep enough other words to be a template."""
    name = _condensed(document.name)
    name_parts = set(_NAME_WORD.findall(document.name.lower()))
    found = []
    for sentence in _SENTENCE_END.split(document.description.strip())[:_SENTENCES_COMPARED]:
        words: list[str] = []
        for word in _NAME_WORD.findall(sentence):
            if _is_name_word(word, name, name_parts):
                if not words or words[-1] != _SLOT:
                    words.append(_SLOT)
            else:
                words.extend(tokenize(word))
        if _SLOT in words and len(words) - words.count(_SLOT) >= _TEMPLATE_MIN_WORDS:
            found.append(" ".join(words))
    return found


@dataclass
class TemplateFamilies:
    """The documents of one snapshot grouped into templated families of at least ``min_size``."""

    documents: Sequence[Document]
    min_size: int
    #: the documents chosen only when named: family members with a name word that tells them apart.
    _gated: npt.NDArray[np.bool_] = field(init=False)
    #: telling name word -> the members whose names have it.
    _owners: dict[str, list[int]] = field(init=False, default_factory=dict)
    #: one-deletion variant -> the long telling words it comes from (misspelt names).
    _variants: dict[str, set[str]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._gated = np.zeros(len(self.documents), dtype=np.bool_)
        per_document: list[list[str]] = [
            [] if d.kind == "tool" or d.examples else _signatures(d) for d in self.documents
        ]
        counts = Counter(sig for sigs in per_document for sig in set(sigs))
        families: dict[str, list[int]] = {}
        for number, sigs in enumerate(per_document):
            large = [sig for sig in sigs if counts[sig] >= self.min_size]
            if large:
                families.setdefault(max(large, key=counts.__getitem__), []).append(number)
        for members in families.values():
            names = {number: _name_forms(self.documents[number].name) for number in members}
            shared = Counter(word for words in names.values() for word in words)
            for number, words in names.items():
                for word in words:
                    if shared[word] > NAME_SHARED_MAX:
                        continue
                    self._gated[number] = True
                    self._owners.setdefault(word, []).append(number)
                    if FUZZY_MIN_LENGTH <= len(word) <= FUZZY_MAX_LENGTH:
                        index_for_typos(self._variants, word)

    @property
    def gated(self) -> int:
        """How many documents are chosen only when named."""
        return int(self._gated.sum())

    def unnamed(self, texts: Iterable[str]) -> npt.NDArray[np.bool_]:
        """Per document, whether it is a family member that none of ``texts`` names."""
        out = self._gated.copy()
        if not self._owners:
            return out
        for said in {form for text in texts for form in _said_forms(text)}:
            for word in self._named(said):
                out[self._owners[word]] = False
        return out

    def _named(self, said: str) -> set[str]:
        """The telling name words ``said`` is, exactly or misspelt by one edit."""
        if said in self._owners:
            return {said}
        # Misspelt names count as rare names do: 7 to 32 letters ("calender", "splitwize"; a
        # pasted blob costs nothing).
        return typos_of(said, self._variants) if FUZZY_MIN_LENGTH <= len(said) <= FUZZY_MAX_LENGTH else set()
