"""Cursor's ``globs:`` and ``alwaysApply`` as ContextDesk's include mode and ``globs:``.

Cursor attaches a rule with globs when a matching file is in play; ContextDesk does the same for
any include mode (docs/agent-format.md), so the mapping keeps Cursor's behaviour:

- ``alwaysApply: true``: ``always`` (Cursor ignores the globs; they are kept, and mean nothing);
- globs matching every file (``**/*``): ``always``, since Cursor attaches them to nearly every request;
- a description and globs: ``agent`` (chosen by the message) and the globs;
- globs only: ``manual`` and the globs (the rule joins when a file matches);
- a description only: ``agent``; neither: ``manual``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_core.agent.file_globs import MAX_GLOBS, glob_problem, is_catch_all, split_glob_list
from agent_core.agent.schema import IncludeMode

__all__ = ["CursorAttachment", "cursor_attachment"]

_GLOBS_LINE = re.compile(r"^globs\s*:(.*)$")
_LIST_ITEM = re.compile(r"^\s+-\s*(.*)$|^-\s+(.*)$")


@dataclass(frozen=True)
class CursorAttachment:
    """How an imported Cursor rule joins chats, and what of its globs could not be kept."""

    include: IncludeMode
    globs: tuple[str, ...]
    dropped: tuple[str, ...] = ()  # each: the pattern and why it was left out


def cursor_attachment(header: str, *, description: str, always_apply: bool) -> CursorAttachment:
    """The include mode and globs of a Cursor rule whose header text is ``header``."""
    kept: list[str] = []
    dropped: list[str] = []
    for pattern in _globs_in(header):
        problem = glob_problem(pattern)
        if problem is None and len(kept) >= MAX_GLOBS:
            problem = f"a rule keeps {MAX_GLOBS} globs at most"
        if problem is None:
            kept.append(pattern)
        else:
            dropped.append(f"glob {pattern!r} ({problem})")
    if always_apply or (kept and is_catch_all(kept)):
        include = IncludeMode.ALWAYS
    elif description:
        include = IncludeMode.AGENT
    else:
        include = IncludeMode.MANUAL
    return CursorAttachment(include, tuple(kept), tuple(dropped))


def _globs_in(header: str) -> list[str]:
    """The patterns of ``globs:``, in each form Cursor rules are found with: ``*.ts, src/**``,
    ``["*.ts", "src/**"]``, and a YAML list below the key (Cursor's header is not strict YAML:
    ``globs: *.ts`` is read as written)."""
    lines = header.replace("\r\n", "\n").split("\n")
    for index, line in enumerate(lines):
        found = _GLOBS_LINE.match(line)
        if found is None:
            continue
        value = found.group(1).strip()
        if value.startswith("[") and value.endswith("]"):
            value = value[1:-1]
        if value:
            return split_glob_list(value)
        patterns = []
        for following in lines[index + 1 :]:
            item = _LIST_ITEM.match(following)
            if item is None:
                break
            patterns += split_glob_list(item.group(1) or item.group(2) or "")
        return patterns
    return []
