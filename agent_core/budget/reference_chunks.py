"""Shrinking a long reference to the chunks that matter for this message."""

from __future__ import annotations

import re
from collections import Counter

from agent_core.budget.counting import TokenCounter
from indexer import chunk_text

__all__ = ["relevant_chunks"]

_WORD = re.compile(r"[a-z0-9]{3,}")
GAP = "\n[…]\n"


def relevant_chunks(text: str, query: str, max_tokens: int, counter: TokenCounter) -> tuple[str, str]:
    """``text`` if it fits in ``max_tokens``; otherwise its chunks that share most words with
    ``query``, kept in document order, as (text, detail such as "chunks 2, 5 of 9")."""
    if counter.count(text) <= max_tokens:
        return text, ""
    chunks = chunk_text(text)
    query_words = Counter(_WORD.findall(query.lower()))

    def overlap(index: int) -> tuple[float, int]:
        words = Counter(_WORD.findall(chunks[index].lower()))
        shared = sum(min(count, words[word]) for word, count in query_words.items())
        return (shared / (1 + len(words)) ** 0.5, -index)  # ties: earlier chunks first

    chosen: list[int] = []
    used = 0
    for index in sorted(range(len(chunks)), key=overlap, reverse=True):
        cost = counter.count(chunks[index]) + counter.count(GAP)
        if used + cost > max_tokens:
            continue
        chosen.append(index)
        used += cost
    chosen.sort()
    shown = ", ".join(str(i + 1) for i in chosen)
    return GAP.join(chunks[i] for i in chosen), f"chunks {shown} of {len(chunks)}"
