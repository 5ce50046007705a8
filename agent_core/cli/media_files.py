"""Images and audio from a tool result, saved as files the CLI names (it never overwrites one)."""

from __future__ import annotations

import base64
import binascii
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path

from agent_core.content_parts import ContentPart, decoded_size, human_size, media_summary

__all__ = ["MAX_SAVED_BYTES", "SavedMedia", "save_media"]

# A server is untrusted: a part bigger than this is not written (the CLI says so).
MAX_SAVED_BYTES = 50 * 1024 * 1024
_SAFE_EXTENSIONS = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".bmp", ".wav", ".mp3", ".ogg", ".flac"}


@dataclass(frozen=True)
class SavedMedia:
    """One image or audio part: where it was saved, or why it was not; and what it is."""

    summary: str
    path: Path | None = None
    problem: str | None = None


def save_media(parts: tuple[ContentPart, ...], folder: Path, stem: str) -> list[SavedMedia]:
    """Write each image and audio part to ``folder`` as ``<stem>-<n>.<ext>``, skipping taken names."""
    saved: list[SavedMedia] = []
    safe_stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", stem).strip(".-") or "result"
    for part in parts:
        if part.type not in ("image", "audio") or part.data is None:
            continue
        summary = media_summary(part.type, part.mime_type, part.data)
        if decoded_size(part.data) > MAX_SAVED_BYTES:
            saved.append(SavedMedia(summary, problem=f"not saved: bigger than {human_size(MAX_SAVED_BYTES)}"))
            continue
        try:
            data = base64.b64decode(part.data, validate=True)
        except (binascii.Error, ValueError):
            saved.append(SavedMedia(summary, problem="not saved: its data is not valid base64"))
            continue
        saved.append(SavedMedia(summary, path=_write_new(folder, safe_stem, _extension(part), data)))
    return saved


def _extension(part: ContentPart) -> str:
    guessed = mimetypes.guess_extension((part.mime_type or "").split(";")[0].strip()) or ""
    return guessed if guessed in _SAFE_EXTENSIONS else (".img" if part.type == "image" else ".audio")


def _write_new(folder: Path, stem: str, extension: str, data: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    number = 1
    while True:
        path = folder / f"{stem}-{number}{extension}"
        try:
            with path.open("xb") as file:  # "x": a file already there is never replaced
                file.write(data)
        except FileExistsError:
            number += 1
            continue
        return path
