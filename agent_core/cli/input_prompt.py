"""The terminal's answer to an ``${input:id}`` variable: asked once, typed without echo."""

from __future__ import annotations

import getpass
import sys

from agent_core.agent.variables import InputRequest

__all__ = ["ask_in_terminal"]


def ask_in_terminal(request: InputRequest) -> str | None:
    """The value typed for ``request``, or None when there is no terminal to ask in (a pipe, CI)."""
    if not sys.stdin.isatty():
        return None
    prompt = f"{request.where} uses ${{input:{request.input_id}}}; enter its value (kept in the keyring): "
    return getpass.getpass(prompt) or None
