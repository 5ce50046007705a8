"""Writing the files of an agent folder in a test."""

from __future__ import annotations

from pathlib import Path


def write(path: Path, text: str | bytes) -> Path:
    """``path`` with ``text`` (UTF-8) or ``bytes`` in it, its folders created."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path
