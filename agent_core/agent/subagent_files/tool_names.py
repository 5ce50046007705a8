"""Tool names in a sub-agent file, as ContextDesk tool patterns (``server.tool``, ``*`` allowed).

Claude Code files name its built-in tools (``Read``, ``Grep``…) and MCP tools as
``mcp__server__tool``. The read-only built-ins map to the workspace server's tools; the others
(shell, edits, the web) have no counterpart here and are reported, never guessed at.
"""

from __future__ import annotations

import re

__all__ = ["CLAUDE_TOOLS", "tool_patterns"]

WORKSPACE = "workspace"

#: Claude Code built-ins and what they are here (None: nothing like it).
CLAUDE_TOOLS: dict[str, str | None] = {
    "Read": f"{WORKSPACE}.read_file",
    "NotebookRead": f"{WORKSPACE}.read_file",
    "Glob": f"{WORKSPACE}.list_files",
    "LS": f"{WORKSPACE}.list_files",
    "Grep": f"{WORKSPACE}.search_files",
    **dict.fromkeys(
        (
            "Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "BashOutput", "KillBash",
            "KillShell", "WebFetch", "WebSearch", "Task", "Agent", "TodoWrite", "ExitPlanMode",
            "SlashCommand", "Skill",
        ),
        None,
    ),
}  # fmt: skip

_MCP = re.compile(r"^mcp__([A-Za-z0-9_-]+?)(?:__(.+))?$")
_CALL_FORM = re.compile(r"^([A-Za-z]+)\(.*\)$")  # Claude Code's "Bash(git diff:*)"


def tool_patterns(names: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """ContextDesk patterns for ``names``, and the names that have none (to report)."""
    patterns: list[str] = []
    unsupported: list[str] = []
    for raw in names:
        name = raw.strip()
        if not name:
            continue
        if called := _CALL_FORM.match(name):
            name = called.group(1)
        if mcp := _MCP.match(name):
            patterns.append(f"{mcp.group(1)}.{mcp.group(2) or '*'}")
        elif name in CLAUDE_TOOLS:
            mapped = CLAUDE_TOOLS[name]
            if mapped is None:
                unsupported.append(raw.strip())
            else:
                patterns.append(mapped)
        elif "." in name or name == "*":
            patterns.append(name)
        else:
            patterns.append(f"*.{name}")  # a tool of that name on any server
    return tuple(dict.fromkeys(patterns)), tuple(dict.fromkeys(unsupported))
