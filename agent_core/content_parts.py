"""Blocks of a tool result, prompt or resource beyond plain text, and how a model reads them.

Kept apart from ``agent_core.mcp`` so the chat store can keep them without loading the MCP SDK.
Everything here comes from an untrusted server: sizes are read from headers only, never by decoding.
"""

from __future__ import annotations

import base64
import binascii
import struct
from dataclasses import dataclass, replace
from typing import Literal

__all__ = [
    "ContentPart",
    "MediaFacts",
    "decoded_size",
    "human_size",
    "kept_parts",
    "media_facts",
    "media_summary",
]

# What a chat keeps of a result's non-text parts (in its database, and to show): the first few,
# each with at most this much base64 data; a bigger one is kept without its data.
MAX_KEPT_PARTS = 16
MAX_KEPT_DATA = 4 * 1024 * 1024

# Enough of the data for every header read here (PNG, GIF, WebP, JPEG frames near the start, WAV).
_HEADER_BYTES = 64 * 1024


@dataclass(frozen=True)
class MediaFacts:
    """What the headers of an image or audio clip say: its size in bytes, and pixels or seconds."""

    size: int
    width: int | None = None
    height: int | None = None
    seconds: float | None = None


@dataclass(frozen=True)
class ContentPart:
    """One block of a tool result, prompt or resource: text, or a description of binary data."""

    type: Literal["text", "image", "audio", "resource", "resource_link"]
    text: str | None = None  # text, an embedded resource's text, or a resource link's name
    mime_type: str | None = None
    data: str | None = None  # base64, for images, audio and binary resources
    uri: str | None = None
    description: str | None = None  # a resource link's description
    dropped_size: int | None = None  # bytes of data left out because it was too big to keep

    def describe(self) -> str:
        """The part as text a model can read (binary data as one line: kind, type, size)."""
        if self.type == "text":
            return self.text or ""
        if self.type == "resource" and self.text is not None:
            return self.text
        if self.type in ("image", "audio") and self.data is not None:
            return media_summary(self.type, self.mime_type, self.data)
        size = f", {human_size(decoded_size(self.data))}" if self.data else ""
        where = f" {self.uri}" if self.uri else ""
        kind = "link" if self.type == "resource_link" else self.type
        name = f" ({self.text})" if self.text and self.type == "resource_link" else ""
        return f"[{kind}{where}{name}: {self.mime_type or 'unknown type'}{size}]"


def kept_parts(parts: tuple[ContentPart, ...]) -> tuple[ContentPart, ...]:
    """The non-text parts of a result worth keeping for display, bounded in number and size."""
    kept: list[ContentPart] = []
    for part in parts:
        if part.type == "text":
            continue
        if len(kept) == MAX_KEPT_PARTS:
            break
        if part.data is not None and len(part.data) > MAX_KEPT_DATA:
            part = replace(part, data=None, dropped_size=decoded_size(part.data))
        kept.append(part)
    return tuple(kept)


def decoded_size(data: str) -> int:
    """Bytes that ``data`` (base64) decodes to, without decoding it."""
    return len(data) * 3 // 4 - data[-2:].count("=")


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def media_summary(kind: str, mime_type: str | None, data: str) -> str:
    """One line for a model that cannot see or hear it: ``[image: PNG 64x64, 1.2 KB]``."""
    facts = media_facts(data)
    subtype = (mime_type or "unknown").split("/")[-1].upper()
    detail = ""
    if facts.width and facts.height:
        detail = f" {facts.width}x{facts.height}"
    elif facts.seconds is not None:
        detail = f" {facts.seconds:.1f} s"
    return f"[{kind}: {subtype}{detail}, {human_size(facts.size)}]"


def media_facts(data: str) -> MediaFacts:
    """Size, and dimensions or duration where the header says them (PNG, GIF, WebP, JPEG, WAV)."""
    size = decoded_size(data)
    try:
        head = base64.b64decode(data[: _HEADER_BYTES * 4 // 3 // 4 * 4], validate=False)
    except (binascii.Error, ValueError):
        return MediaFacts(size)
    try:
        return _from_header(head, size)
    except (struct.error, IndexError):  # a truncated or lying header
        return MediaFacts(size)


def _from_header(head: bytes, size: int) -> MediaFacts:
    if head.startswith(b"\x89PNG\r\n\x1a\n") and head[12:16] == b"IHDR":
        width, height = struct.unpack(">II", head[16:24])
        return MediaFacts(size, width, height)
    if head[:6] in (b"GIF87a", b"GIF89a"):
        width, height = struct.unpack("<HH", head[6:10])
        return MediaFacts(size, width, height)
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP" and head[12:16] == b"VP8X":
        width = int.from_bytes(head[24:27], "little") + 1
        height = int.from_bytes(head[27:30], "little") + 1
        return MediaFacts(size, width, height)
    if head.startswith(b"\xff\xd8"):
        return _jpeg(head, size)
    if head.startswith(b"RIFF") and head[8:12] == b"WAVE":
        return _wav(head, size)
    return MediaFacts(size)


def _jpeg(head: bytes, size: int) -> MediaFacts:
    offset = 2
    while offset + 9 < len(head) and head[offset] == 0xFF:
        marker = head[offset + 1]
        length = struct.unpack(">H", head[offset + 2 : offset + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):  # start of frame: height, then width
            height, width = struct.unpack(">HH", head[offset + 5 : offset + 9])
            return MediaFacts(size, width, height)
        offset += 2 + length
    return MediaFacts(size)


def _wav(head: bytes, size: int) -> MediaFacts:
    offset = 12
    byte_rate = 0
    while offset + 8 <= len(head):
        chunk, length = head[offset : offset + 4], struct.unpack("<I", head[offset + 4 : offset + 8])[0]
        if chunk == b"fmt ":
            byte_rate = struct.unpack("<I", head[offset + 16 : offset + 20])[0]
        elif chunk == b"data" and byte_rate:
            return MediaFacts(size, seconds=min(length, size) / byte_rate)
        offset += 8 + length + (length & 1)
    return MediaFacts(size)
