"""The terminal's answer to an ``${input:id}`` variable: asked once, typed without echo."""

from __future__ import annotations

import getpass
import sys
from typing import TextIO

from agent_core.agent.variables import InputRequest

__all__ = ["ask_in_terminal", "ask_yes"]


def ask_in_terminal(request: InputRequest) -> str | None:
    """The value typed for ``request``, or None when there is no terminal to ask in (a pipe, CI)."""
    if not sys.stdin.isatty():
        return None
    prompt = f"{request.where} uses ${{input:{request.input_id}}}; enter its value (kept in the keyring): "
    return getpass.getpass(prompt) or None


def ask_yes(question: str, err: TextIO) -> bool:
    """Whether the user typed y or yes after ``question`` (no by default); False without a terminal
    to ask in, or when the answer cannot be read."""
    if not sys.stdin.isatty():
        return False
    print(question, end="", file=err, flush=True)
    try:
        return sys.stdin.readline().strip().lower() in ("y", "yes")
    except (EOFError, OSError, UnicodeDecodeError):
        return False
