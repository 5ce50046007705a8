"""Reading a header that is not valid YAML the way Claude Code does: ``key: rest of line``.

Real agent and skill files are written for tools that read their headers leniently: a description
with an unquoted ``Examples:`` or ``<example>`` block, a colon in a sentence, a stray quote. YAML
rejects them; Claude Code reads each ``key:`` line at the left margin as a key and the rest of the
line as its text, and lines that follow (up to the next key) as more of that text. This module
does the same, so such a file loads, with a warning that says how it was read.
"""

from __future__ import annotations

import re

__all__ = ["read_loose_header"]

_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]{0,63})\s*:(?:\s+(.*)|)$")
_MAX_KEYS = 64  # a header with more keys than this is not a header anyone wrote by hand


def read_loose_header(text: str) -> dict[str, str | list[str]]:
    """The header ``text`` read line by line: each ``key:`` at the left margin starts a value; the
    lines after it, up to the next key, continue it (joined with line breaks). A value given only as
    ``- item`` lines is a list. Quotes around a one-line value are taken off."""
    values: dict[str, list[str]] = {}
    current: str | None = None
    for line in text.split("\n"):
        match = _KEY_LINE.match(line)
        if match and (match.group(1) in values or len(values) < _MAX_KEYS):
            current = match.group(1)
            values[current] = [match.group(2) or ""]
        elif current is not None:
            values[current].append(line)
    return {key: _value(lines) for key, lines in values.items()}


def _value(lines: list[str]) -> str | list[str]:
    first, rest = lines[0].strip(), [line.strip() for line in lines[1:]]
    while rest and not rest[-1]:
        rest.pop()
    items = [line for line in rest if line]
    if not first and items and all(line.startswith("- ") for line in items):
        return [_unquoted(line[2:].strip()) for line in items]
    if first in ("|", ">", "|-", ">-", "|+", ">+"):
        joiner = "\n" if first.startswith("|") else " "
        return joiner.join(rest).strip()
    if not rest:
        return _unquoted(first)
    return "\n".join([first, *rest]).strip()


def _unquoted(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value
