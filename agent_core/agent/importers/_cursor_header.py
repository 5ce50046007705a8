"""The header of a Cursor rule (``.mdc``): ``key: value`` lines, read as Cursor writes them.

Cursor's header is not strict YAML (``globs: *.ts`` is an alias error in YAML, ``description: a: b``
a mapping error), so each line is split at its first colon. A value is unquoted only when it is
quoted as a whole: an unquoted description that ends in a quote keeps it.
"""

from __future__ import annotations

import json

__all__ = ["read_cursor_header"]


def read_cursor_header(header: str) -> dict[str, str]:
    """The ``key: value`` pairs of a Cursor rule header (later keys win, as in YAML)."""
    values: dict[str, str] = {}
    for line in header.split("\n"):
        key, separator, value = line.partition(":")
        if separator and key.strip() and not key.startswith((" ", "\t", "#")):
            values[key.strip()] = _unquoted(value.strip())
    return values


def _unquoted(value: str) -> str:
    if len(value) < 2 or value[0] != value[-1] or value[0] not in "'\"":
        return value
    inner = value[1:-1]
    if value[0] == "'":
        return inner.replace("''", "'")  # YAML's single quotes escape a quote by doubling it
    try:
        decoded = json.loads(value)  # YAML double quotes escape as JSON does (\" \n \u00e9)
    except json.JSONDecodeError:
        return value  # not one quoted string ('"a" and "b"'): every character is kept
    return decoded if isinstance(decoded, str) else value
