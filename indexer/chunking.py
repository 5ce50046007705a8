"""Splitting item text into chunks for embedding (the anchor design's paragraph/sentence scheme).

A chunk is a paragraph; a paragraph longer than ``max_chars`` is split into sentences packed
into chunks of at most ``max_chars``. Fenced code blocks count as one paragraph (blank lines
inside them do not split) and are packed by lines instead of sentences. A "sentence" with no
break in ``max_chars`` is cut at the last space, or hard at ``max_chars`` if it has none.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["DEFAULT_MAX_CHARS", "chunk_text", "sentences"]

DEFAULT_MAX_CHARS = 500

_FENCE = re.compile(r"^[ \t]*(```|~~~)")
# After ., ! or ? (optionally closed by a quote or bracket) and whitespace; after CJK full
# stops even without whitespace.
_SENTENCE_END = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+|(?<=[。！？])\s*")


def chunk_text(text: str, max_chars: int = DEFAULT_MAX_CHARS) -> list[str]:
    """Split ``text`` into stripped, non-empty chunks of at most ``max_chars`` characters each.

    Raises:
        ValueError: ``max_chars`` is below 1.
    """
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    if len(text) <= max_chars and "\n" not in text and "\r" not in text:
        # One line that fits (a tool's description, an example request): one chunk, as the
        # general path would give, without walking it (an agent may have tens of thousands).
        stripped = text.strip()
        return [stripped] if stripped else []
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    chunks: list[str] = []
    for paragraph, is_code in _paragraphs(text):
        if len(paragraph) <= max_chars:
            chunks.append(paragraph)
        elif is_code:
            chunks.extend(_pack(paragraph.split("\n"), max_chars, "\n"))
        else:
            chunks.extend(_pack(sentences(paragraph), max_chars, " "))
    return chunks


def _paragraphs(text: str) -> Iterator[tuple[str, bool]]:
    """Yield (paragraph, is_code_block) pairs; blank lines split, except inside code fences."""
    block: list[str] = []
    in_fence = False
    fence_marker = ""

    def flush(is_code: bool) -> Iterator[tuple[str, bool]]:
        joined = "\n".join(block).strip()
        block.clear()
        if joined:
            yield joined, is_code

    for line in text.split("\n"):
        fence = _FENCE.match(line)
        if in_fence:
            block.append(line)
            if fence and fence.group(1) == fence_marker:
                in_fence = False
                yield from flush(True)
        elif fence:
            yield from flush(False)
            in_fence, fence_marker = True, fence.group(1)
            block.append(line)
        elif not line.strip():
            yield from flush(False)
        else:
            block.append(line)
    yield from flush(in_fence)


def sentences(paragraph: str) -> list[str]:
    """The stripped sentences of ``paragraph``."""
    return [s.strip() for s in _SENTENCE_END.split(paragraph) if s and s.strip()]


def _pack(pieces: list[str], max_chars: int, joiner: str) -> list[str]:
    """Greedily join ``pieces`` into chunks of at most ``max_chars``; cut pieces that are too long."""
    chunks: list[str] = []
    current = ""
    for piece in pieces:
        for part in _cut(piece, max_chars):
            candidate = f"{current}{joiner}{part}" if current else part
            if len(candidate) <= max_chars:
                current = candidate
            else:
                if current.strip():
                    chunks.append(current.strip())
                current = part
    if current.strip():
        chunks.append(current.strip())
    return chunks


def _cut(piece: str, max_chars: int) -> Iterator[str]:
    """Cut one over-long piece at the last whitespace before ``max_chars`` (hard cut if none)."""
    while len(piece) > max_chars:
        cut = piece.rfind(" ", 0, max_chars + 1)
        if cut <= 0:
            cut = max_chars
        head, piece = piece[:cut].rstrip(), piece[cut:].lstrip()
        if head:
            yield head
    if piece:
        yield piece
