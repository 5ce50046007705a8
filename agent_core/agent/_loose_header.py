"""Reading a header that is not valid YAML the way Claude Code does: ``key: rest of line``.

Real agent and skill files are written for tools that read their headers leniently: a description
with an unquoted ``Examples:`` or ``<example>`` block, a colon in a sentence, a stray quote. YAML
rejects them; Claude Code reads each ``key:`` line at the left margin as a key and the rest of the
line as its text, and lines that follow (up to the next key) as more of that text. This module
does the same, so such a file loads, with a warning that says how it was read. Cursor's rule
headers (``globs: *.ts``) are read with it too: one reader for headers written this way.

Two things keep a description whole where a line inside it looks like a key: a line inside a
``<tag>`` block the value opened and has not closed yet (``<example>`` ... ``user: "..."`` ...
``</example>``) continues the value, and a ``#`` line at the left margin is a comment, as in YAML.
"""

from __future__ import annotations

import json
import re

__all__ = ["read_loose_header", "unquoted"]

_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]{0,63})\s*:(?:\s+(.*)|)$")
_MAX_KEYS = 64  # a header with more keys than this is not a header anyone wrote by hand
_OPENING_TAG = re.compile(r"<([A-Za-z][\w-]{0,63})(?:\s[^<>]*)?>")
_CLOSING_TAG = re.compile(r"</([A-Za-z][\w-]{0,63})\s*>")


def read_loose_header(text: str) -> dict[str, str | list[str]]:
    """The header ``text`` read line by line: each ``key:`` at the left margin starts a value; the
    lines after it, up to the next key, continue it (joined with line breaks). A value given only as
    ``- item`` lines is a list. Quotes around a one-line value are taken off (as YAML would)."""
    values: dict[str, list[str]] = {}
    current: str | None = None
    open_tags = 0  # <tag> blocks the current value opened and has not closed
    lines = text.split("\n")
    closings_from = _closings_from(lines)
    for index, line in enumerate(lines):
        # Inside a block that is closed further down, a key-like line is the block's text; a block
        # never closed does not swallow the keys after it (a lost tools: would grant every tool).
        inside = 0 < open_tags <= closings_from[index]
        match = None if inside else _KEY_LINE.match(line)
        if match and (match.group(1) in values or len(values) < _MAX_KEYS):
            current = match.group(1)
            values[current] = [match.group(2) or ""]
            open_tags = _tag_balance(line)
        elif line.startswith("#") and not inside:
            continue
        elif current is not None:
            values[current].append(line)
            open_tags += _tag_balance(line)
    return {key: _value(value_lines) for key, value_lines in values.items()}


def _closings_from(lines: list[str]) -> list[int]:
    """For each line, how many closing tags it and the lines after it hold."""
    counts = [0] * (len(lines) + 1)
    for index in range(len(lines) - 1, -1, -1):
        counts[index] = counts[index + 1] + len(_CLOSING_TAG.findall(lines[index]))
    return counts


def _tag_balance(line: str) -> int:
    """Tags ``line`` opens minus tags it closes (``<br/>``-style tags count as neither)."""
    return len(_OPENING_TAG.findall(line)) - len(_CLOSING_TAG.findall(line))


def _value(lines: list[str]) -> str | list[str]:
    first, rest = lines[0].strip(), [line.strip() for line in lines[1:]]
    while rest and not rest[-1]:
        rest.pop()
    items = [line for line in rest if line]
    if not first and items and all(line.startswith("- ") for line in items):
        return [unquoted(line[2:].strip()) for line in items]
    if first in ("|", ">", "|-", ">-", "|+", ">+"):
        joiner = "\n" if first.startswith("|") else " "
        return joiner.join(rest).strip()
    if not rest:
        return unquoted(first)
    return "\n".join([first, *rest]).strip()


def unquoted(value: str) -> str:
    """``value`` without the quotes around it when it is quoted as a whole, read as YAML reads
    quotes; otherwise every character is kept (``Use "strict" mode"`` stays as written)."""
    if len(value) < 2 or value[0] != value[-1] or value[0] not in "'\"":
        return value
    if value[0] == "'":
        inner = value[1:-1]
        if "'" in inner.replace("''", ""):
            return value  # not one quoted string ('a' and 'b')
        return inner.replace("''", "'")  # YAML's single quotes escape a quote by doubling it
    try:
        decoded = json.loads(value)  # YAML double quotes escape as JSON does (\" \n \u00e9)
    except json.JSONDecodeError:
        return value  # not one quoted string ("a" and "b")
    return decoded if isinstance(decoded, str) else value
