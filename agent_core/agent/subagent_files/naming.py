"""The name a sub-agent goes by, from the name its header gives (or its file's name).

Claude Code identifies an agent by its header's ``name`` and accepts what ContextDesk cannot use
as a tool and file name: ``Code Reviewer``, ``ZK Steward``, ``powershell-5.1-expert``, a name in
emoji or Chinese. Such a name becomes a valid one close to it, lower-case with hyphens as Claude
Code's own names are (``code-reviewer``, ``powershell-5-1-expert``), and the original is kept as
the display name; a name with nothing left to build on (``智能体名称``) gives way to the file's name.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from agent_core.agent.names import MAX_NAME_LENGTH, name_problem, suggest_name

__all__ = ["SubagentName", "slug", "subagent_name"]


@dataclass(frozen=True)
class SubagentName:
    name: str  # the valid name it goes by
    display_name: str | None  # the header's own name when it is not ``name``
    change: str | None  # why ``name`` is not what the file gives, said for a warning


def subagent_name(given: object, file_stem: str) -> SubagentName:
    """The name for a sub-agent whose header gives ``given`` (None: no name) in the file
    ``file_stem``.md."""
    if isinstance(given, str) and given.strip():
        given = given.strip()
        if name_problem(given) is None:
            return SubagentName(given, None, None)
        made = slug(given)
        goes_by = f"'{made}'" if made else f"its file's name, '{_file_name(file_stem)}'"
        change = f"the name '{given}' {_why_not(given)}: it goes by {goes_by} here, '{given}' kept as its display name"
        return SubagentName(made or _file_name(file_stem), given, change)
    if given is not None and not isinstance(given, str):
        fallback = _file_name(file_stem)
        return SubagentName(fallback, None, f"its name is not text ({given!r}): it goes by its file's name")
    name = _file_name(file_stem)
    if name == file_stem:
        return SubagentName(name, None, None)
    return SubagentName(name, None, f"the file name '{file_stem}' {_why_not(file_stem)}: it goes by '{name}'")


def slug(text: str) -> str:
    """Lower-case letters, digits and single hyphens close to ``text`` ('' when nothing is left):
    accents are dropped (``Café`` -> ``cafe``), other characters become hyphens."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    words = re.sub(r"[^a-z0-9_]+", "-", folded).strip("-_")
    if not words:
        return ""
    return suggest_name(words[:MAX_NAME_LENGTH].rstrip("-_"))


def _why_not(name: str) -> str:
    if len(name) > MAX_NAME_LENGTH:
        return f"is longer than {MAX_NAME_LENGTH} characters"
    if "reserved" in (name_problem(name) or ""):
        return "is reserved on Windows"
    return "is not a valid name (letters, digits, '_' and '-' only)"


def _file_name(stem: str) -> str:
    if name_problem(stem) is None:
        return stem
    return slug(stem) or "subagent"
