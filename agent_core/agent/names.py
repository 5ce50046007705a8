"""Item and server names double as file names, so they are kept safe on every platform."""

from __future__ import annotations

import re

__all__ = ["NAME_PATTERN", "name_problem", "suggest_name"]

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,79}$")

# Windows refuses these as file names whatever the extension.
_RESERVED = {
    "con",
    "prn",
    "aux",
    "nul",
    *(f"com{i}" for i in range(1, 10)),
    *(f"lpt{i}" for i in range(1, 10)),
}


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be used as an item name, or None when it can."""
    if not name:
        return "the name is empty"
    if not NAME_PATTERN.match(name):
        return (
            f"'{name}' is not a safe name: use 1-80 letters, digits, '_' or '-', "
            "starting with a letter or digit"
        )
    if name.lower() in _RESERVED:
        return f"'{name}' is reserved on Windows"
    return None


def suggest_name(text: str) -> str:
    """A safe name close to ``text``, e.g. ``"My rule!.mdt"`` -> ``"My-rule"``."""
    candidate = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-_")[:80] or "item"
    if not candidate[0].isalnum():
        candidate = "x" + candidate[:79]
    if candidate.lower() in _RESERVED:
        candidate += "-item"
    return candidate
