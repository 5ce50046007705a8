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

The likeliest chance match is a short piece far from what its item is about, a heading or a label:
"### 4. Clean Up Worktrees" in a guide to merging, "Output:" in an evaluation skill, each scoring
above the item a message needs, whose name and description say just what the message asks. A few
words embed as those words alone, with nothing around them to say what they are about. So in a set
past the reference, a body chunk of fewer than :data:`SHORT_CHUNK_WORDS` words, of an item that has
a description, also loses part of its lead over that item's head (``name: description``):
``slope x ln(N / reference)`` of it, at most :data:`MAX_HEAD_AGREEMENT`. A heading its head agrees
with keeps its score. Sentences and paragraphs are not judged by the head: a knowledge base's
page is chosen for its facts, which its description ("Security policy") does not repeat (judging
them too cost a company handbook's references a quarter of their F1 among the scale set's skills).
A note without a description, whose head is only a file name, is never judged by it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from indexer.documents import Document

__all__ = [
    "MAX_HEAD_AGREEMENT",
    "SHORT_CHUNK_WORDS",
    "ChunksOf",
    "body_chunk_mask",
    "body_discount",
    "head_agreement_share",
    "with_head_agreement",
]

#: The most of a body chunk's lead over its head that is ever taken off: a body may still say
#: more than its description.
MAX_HEAD_AGREEMENT = 0.9
#: Body chunks of fewer words than this (headings, labels) are judged with their item's head.
SHORT_CHUNK_WORDS = 6

#: The chunks a strategy embeds for a document.
ChunksOf = Callable[[Document], Sequence[str]]


def body_chunk_mask(
    documents: Sequence[Document],
    chunk_texts: Sequence[str],
    chunk_item: npt.NDArray[np.intp],
    chunks_of: ChunksOf,
) -> npt.NDArray[np.bool_]:
    """Per chunk, whether it belongs to its item's body (not to its name, description or examples)."""
    # Its head is everything but its text (not its description tier: a skill's sentences are
    # left out of that for the background, and they are description, not body).
    head_texts = [
        set(chunks_of(replace(document, text=""))) if document.kind != "tool" and document.text else None
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


def head_agreement_share(body_chunks: int, slope: float, reference: int) -> float:
    """The share of a body chunk's lead over its item's head taken off in a set of ``body_chunks``
    body chunks: ``slope x ln(body_chunks / reference)``, at most :data:`MAX_HEAD_AGREEMENT`,
    nothing at or under ``reference``."""
    return min(MAX_HEAD_AGREEMENT, body_discount(body_chunks, slope, reference))


def with_head_agreement(
    chunk_scores: npt.NDArray[np.float32],
    judged: npt.NDArray[np.bool_],
    head_of_chunk: npt.NDArray[np.intp],
    share: float,
) -> npt.NDArray[np.float32]:
    """``chunk_scores`` with each ``judged`` chunk's lead over its item's head chunk
    (``head_of_chunk``, an index into ``chunk_scores``) cut by ``share``."""
    heads = chunk_scores[np.maximum(head_of_chunk, 0)]
    lead = np.maximum(chunk_scores - heads, 0.0)
    return np.where(judged, chunk_scores - share * lead, chunk_scores).astype(np.float32)
