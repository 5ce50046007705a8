"""A small BM25 over documents, in numpy: the lexical half of the hybrid strategy.

Scores are reported as the fraction of the query's best possible BM25 score that a document
reaches, so they lie in [0, 1] and mean the same whatever the corpus size: query terms the
corpus never uses still count in that maximum (with the idf of an unseen term).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["Bm25", "tokenize"]

_K1 = 1.2
_B = 0.75
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# Function words, and the social words of a chat (greetings, thanks), carry no topic; kept short
# on purpose (English only). Without the latter, "hello" matched a reference whose code sample
# prints "hello" and got it the whole lexical bonus.
_STOPWORDS = frozenset(
    (
        "bye",
        "cheers",
        "goodbye",
        "hello",
        "hey",
        "hi",
        "ok",
        "okay",
        "thank",
        "thanks",
        "thx",
        "yeah",
        "yes",
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "can",
        "could",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "please",
        "should",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "this",
        "to",
        "us",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    )
)


def _stem(word: str) -> str:
    """A deliberately light stemmer: plural and common verb endings only."""
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: len(word) - len(suffix)] + keep
    return word


#: word -> its term (None: a stopword or a single letter), shared by every index of the process:
#: an agent of thousands of items repeats the same few thousand words, and stemming each
#: occurrence was most of building its index.
_TERMS: dict[str, str | None] = {}
_TERMS_KEPT = 200_000


def _term(word: str) -> str | None:
    term = _TERMS.get(word)
    if term is None and word not in _TERMS:
        lower = word.lower()
        term = None if lower in _STOPWORDS or len(lower) < 2 else _stem(lower)
        if len(_TERMS) < _TERMS_KEPT:
            _TERMS[word] = term
    return term


def tokenize(text: str) -> list[str]:
    """Lower-cased, lightly stemmed words; snake_case and camelCase are split; stopwords dropped."""
    terms = (_term(w) for w in _WORD.findall(_CAMEL.sub(" ", text)))
    return [t for t in terms if t is not None]


class Bm25:
    """BM25 (k1=1.2, b=0.75) over a fixed list of documents."""

    def __init__(self, documents: Sequence[str]) -> None:
        self._n = len(documents)
        counts = [Counter(tokenize(d)) for d in documents]
        lengths = np.array([sum(c.values()) for c in counts], dtype=np.float32)
        avg = float(lengths.mean()) if self._n and lengths.sum() > 0 else 1.0
        norm = _K1 * (1 - _B + _B * lengths / avg)
        postings: dict[str, tuple[list[int], list[float]]] = {}
        for doc, counter in enumerate(counts):
            for term, tf in counter.items():
                ids, weights = postings.setdefault(term, ([], []))
                ids.append(doc)
                weights.append(tf * (_K1 + 1) / (tf + float(norm[doc])))
        self._postings: dict[str, tuple[npt.NDArray[np.intp], npt.NDArray[np.float32]]] = {
            t: (np.asarray(ids, dtype=np.intp), np.asarray(w, dtype=np.float32))
            for t, (ids, w) in postings.items()
        }

    @property
    def size(self) -> int:
        """How many documents it indexes."""
        return self._n

    def arrays(self) -> dict[str, npt.NDArray[np.generic]]:
        """The index as flat arrays (to keep in a file without pickling anything)."""
        terms = list(self._postings)
        sizes = np.array([len(self._postings[t][0]) for t in terms], dtype=np.int64)
        empty_ids, empty_weights = np.zeros(0, np.intp), np.zeros(0, np.float32)
        return {
            "n": np.array([self._n], dtype=np.int64),
            "terms": np.frombuffer("\n".join(terms).encode("utf-8"), dtype=np.uint8),
            "offsets": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
            "ids": np.concatenate([self._postings[t][0] for t in terms]).astype(np.int64)
            if terms
            else empty_ids,
            "weights": np.concatenate([self._postings[t][1] for t in terms]) if terms else empty_weights,
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, npt.NDArray[np.generic]]) -> Bm25:
        """The index :meth:`arrays` gave. Raises ValueError if they do not fit together."""
        index = cls.__new__(cls)
        index._n = int(arrays["n"][0])
        text = arrays["terms"].tobytes().decode("utf-8")
        terms = text.split("\n") if text else []
        offsets, ids, weights = arrays["offsets"], arrays["ids"], arrays["weights"]
        if len(offsets) != len(terms) + 1 or int(offsets[-1]) != len(ids) or len(ids) != len(weights):
            raise ValueError("the lexical index arrays do not fit together")
        index._postings = {
            term: (
                ids[offsets[i] : offsets[i + 1]].astype(np.intp),
                weights[offsets[i] : offsets[i + 1]].astype(np.float32),
            )
            for i, term in enumerate(terms)
        }
        return index

    def _idf(self, df: int) -> float:
        return math.log(1 + (self._n - df + 0.5) / (df + 0.5))

    def scores(self, query: str) -> npt.NDArray[np.float32]:
        """Each document's BM25 score as a fraction of the query's maximum possible score."""
        out = np.zeros(self._n, dtype=np.float32)
        terms = set(tokenize(query))
        if not terms or self._n == 0:
            return out
        best = 0.0
        for term in terms:
            ids, weights = self._postings.get(term, (None, None))
            idf = self._idf(0 if ids is None else len(ids))
            best += idf * (_K1 + 1)
            if ids is not None and weights is not None:
                out[ids] += idf * weights
        return out / best if best > 0 else out
