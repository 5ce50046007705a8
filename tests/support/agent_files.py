"""Writing the files of an agent folder in a test, and sub-agent files as people write them."""

from __future__ import annotations

from pathlib import Path

#: A Claude Code sub-agent file as people write them (tools named the Claude Code way).
RESEARCHER = """---
name: researcher
description: Answers one focused question from the workspace documents
tools: Read, Grep
include: always
---
You are a research sub-agent. Answer in one sentence.
"""


def write(path: Path, text: str | bytes) -> Path:
    """``path`` with ``text`` (UTF-8) or ``bytes`` in it, its folders created."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path
