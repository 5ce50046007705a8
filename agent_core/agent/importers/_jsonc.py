"""JSON as editors write it: JSONC (``//`` and ``/* */`` comments, trailing commas) and a UTF-8 BOM.

VS Code, Cursor and Zed accept comments and trailing commas in their settings and ``mcp.json``
files, and Windows PowerShell 5.1 starts every UTF-8 file it writes with a byte-order mark. The
stripper walks the text once and leaves string literals alone, so ``"https://x"`` and
``"a,}"`` survive; it replaces comments with spaces (line numbers in errors stay right).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["parse_jsonc", "strip_jsonc"]

_BOM = "\ufeff"


def parse_jsonc(text: str) -> Any:
    """The data of JSON text that may carry a BOM, comments and trailing commas.

    Raises:
        json.JSONDecodeError: the text is not JSON even after those are removed.
    """
    text = text.removeprefix(_BOM)
    try:
        return json.loads(text)  # the usual case, and the fastest
    except json.JSONDecodeError:
        return json.loads(strip_jsonc(text))


def strip_jsonc(text: str) -> str:
    """``text`` with comments blanked out and commas before ``}`` or ``]`` removed."""
    out: list[str] = []
    index, length = 0, len(text)
    pending_comma: int | None = None  # where in ``out`` the last comma outside a string went
    while index < length:
        char = text[index]
        if char == '"':
            end = _string_end(text, index)
            out.append(text[index:end])
            pending_comma = None
            index = end
            continue
        if char == "/" and text.startswith("//", index):
            end = text.find("\n", index)
            end = length if end == -1 else end
            out.append(" " * (end - index))
            index = end
            continue
        if char == "/" and text.startswith("/*", index):
            end = text.find("*/", index + 2)
            end = length if end == -1 else end + 2
            out.append("".join(c if c == "\n" else " " for c in text[index:end]))
            index = end
            continue
        if char in "}]" and pending_comma is not None:
            out[pending_comma] = " "
        if char == ",":
            pending_comma = len(out)
        elif not char.isspace():
            pending_comma = None
        out.append(char)
        index += 1
    return "".join(out)


def _string_end(text: str, start: int) -> int:
    """The index just past the string literal that opens at ``start`` (or the end of the text)."""
    index = start + 1
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == '"':
            return index + 1
        index += 1
    return len(text)
