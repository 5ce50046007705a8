"""Marking body chunks down by the chance matches a large library brings.

An item is scored by its best chunk. A chunk of a body (a heading, a list item, one sentence of a
long guide) that happens to share a few words with a message scores as high as a real match, and
the more body chunks an agent holds, the higher the best of those chance matches: on the 1,063
public skills of ``benchmarks/selection/scale`` (messages against every chunk of an item they do
not need), the mean best chance cosine was 0.383 over 800 chunks, 0.417 over 2,000, 0.463 over
5,000 and 0.502 over 15,309, close to 0.383 + 0.040 x ln(N / 800). The floors were set on agents of
about a thousand chunks, so past that size each body chunk's cosine is marked down by what the
chance best has grown by: ``slope x ln(N / reference)``. Names, descriptions and examples (the
description tier) are never marked down: there is one of each per item, not thousands.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from indexer.documents import Document
from indexer.tiers import description_tier

__all__ = ["ChunksOf", "body_chunk_mask", "body_discount"]

#: The chunks a strategy embeds for a document.
ChunksOf = Callable[[Document], Sequence[str]]


def body_chunk_mask(
    documents: Sequence[Document],
    chunk_texts: Sequence[str],
    chunk_item: npt.NDArray[np.intp],
    chunks_of: ChunksOf,
) -> npt.NDArray[np.bool_]:
    """Per chunk, whether it belongs to its item's body (not to its name, description or examples)."""
    head_texts = [
        set(chunks_of(description_tier(document))) if document.kind != "tool" and document.text else None
        for document in documents
    ]
    return np.fromiter(
        (
            (heads := head_texts[int(item)]) is not None and text not in heads
            for text, item in zip(chunk_texts, chunk_item, strict=True)
        ),
        dtype=np.bool_,
        count=len(chunk_texts),
    )


def body_discount(body_chunks: int, slope: float, reference: int) -> float:
    """How much a body chunk's cosine is marked down in a set of ``body_chunks`` body chunks:
    ``slope x ln(body_chunks / reference)``, nothing at or under ``reference``."""
    if slope <= 0 or body_chunks <= reference:
        return 0.0
    return slope * math.log(body_chunks / reference)
