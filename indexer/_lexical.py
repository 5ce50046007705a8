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


def tokenize(text: str) -> list[str]:
    """Lower-cased, lightly stemmed words; snake_case and camelCase are split; stopwords dropped."""
    words = _WORD.findall(_CAMEL.sub(" ", text))
    return [_stem(w) for w in (w.lower() for w in words) if w not in _STOPWORDS and len(w) > 1]


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
