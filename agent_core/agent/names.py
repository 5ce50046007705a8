"""Item and server names double as file names, so they are kept safe on every platform."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["MAX_NAME_LENGTH", "NAME_PATTERN", "name_problem", "numbered_name", "suggest_name"]

MAX_NAME_LENGTH = 80
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


def suggest_name(text: str, *, lower: bool = False) -> str:
    """A safe name close to ``text``, e.g. ``"My rule!.mdt"`` -> ``"My-rule"``; accents are
    folded (``"über"`` -> ``"uber"``, as an import names it). ``lower``: lower-case, as the Agent
    Skills standard wants a skill's folder (``"My Skill"`` -> ``"my-skill"``)."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    candidate = (
        re.sub(r"[^A-Za-z0-9_-]+", "-", folded.lower() if lower else folded).strip("-_")[:80] or "item"
    )
    if not candidate[0].isalnum():
        candidate = "x" + candidate[:79]
    if candidate.lower() in _RESERVED:
        candidate += "-item"
    return candidate


def numbered_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name-2``, ``name-3``... whichever is free in ``taken`` (lower-case names).

    The base is shortened when the suffix would pass the length limit, so the result stays valid.
    """
    if name.lower() not in taken:
        return name
    counter = 2
    while True:
        suffix = f"-{counter}"
        base = name[: MAX_NAME_LENGTH - len(suffix)].rstrip("-_")
        candidate = f"{base}{suffix}"
        if candidate.lower() not in taken:
            return candidate
        counter += 1
