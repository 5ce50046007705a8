"""File globs of rules and references (``globs:``): checking a pattern, and matching paths.

The language is the one Cursor rules are written in: ``*`` within a name, ``**`` across folders,
``?``, ``[abc]``, braces ``{ts,tsx}`` and ``!`` to leave paths out. Paths named in a chat come
from anywhere (absolute, relative to a sub-folder, a URL), so a pattern matches the *end* of a
path at a folder boundary: ``src/**/*.ts`` matches ``/home/me/app/src/ui/main.ts``, and a pattern
without ``/`` (``*.py``) matches a file name in any folder. Matching ignores case: people type
paths in messages, and file systems on macOS and Windows ignore it too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "MAX_GLOBS",
    "MAX_GLOB_CHARS",
    "GlobMatch",
    "GlobSet",
    "glob_problem",
    "is_catch_all",
    "split_glob_list",
]

#: Globs one item may have: real rules have one to a handful; more is a sign of a pasted file list.
MAX_GLOBS = 40
MAX_GLOB_CHARS = 300

MAX_WILDCARDS = 8
_WILDCARD_RUN = re.compile(r"\*+")

# `*`, `**`, `**/*`, `*.*`, `**/*.*`: every file (`*.*` misses only names without a dot).
_CATCH_ALL = re.compile(r"(?:\*\*/)*\*{1,2}(?:\.\*)?")


def split_glob_list(text: str) -> list[str]:
    """Cursor's one-line form, ``src/**/*.ts, *.{js,jsx}``: the patterns, split at commas that
    are not inside braces."""
    patterns: list[str] = []
    depth, start = 0, 0
    for index, char in enumerate(text):
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            patterns.append(text[start:index])
            start = index + 1
    patterns.append(text[start:])
    return [p.strip().strip("'\"").strip() for p in patterns if p.strip().strip("'\"").strip()]


def glob_problem(pattern: str) -> str | None:
    """What is wrong with ``pattern``, with the fix, or None when it can be used."""
    if not pattern.strip():
        return "an empty pattern matches no file: remove it"
    if pattern != pattern.strip():
        return f"{pattern!r} starts or ends with spaces: remove them"
    if len(pattern) > MAX_GLOB_CHARS:
        return f"the pattern is {len(pattern)} characters long: shorten it to {MAX_GLOB_CHARS} at most"
    if any(ord(char) < 32 for char in pattern):
        return f"{pattern!r} holds a control character (a tab or a line break): remove it"
    if "\\" in pattern:
        return f"{pattern!r} has a backslash: write folders with '/' (src/app/*.ts), also on Windows"
    if pattern.lstrip("!") == "":
        return "'!' leaves out the paths of the pattern after it, and none follows: write one (!**/*.test.ts)"
    if pattern.count("{") != pattern.count("}") or _unbalanced(pattern, "{", "}"):
        return f"{pattern!r}: the braces do not pair up: write alternatives as {{ts,tsx}}"
    if _unbalanced(pattern, "[", "]") or "[]" in pattern:
        return f"{pattern!r}: the brackets do not pair up: write a set of characters as [abc]"
    if len(_WILDCARD_RUN.findall(pattern)) > MAX_WILDCARDS:
        # Each `*` can backtrack over the others: a few keep matching a path instant.
        return f"{pattern!r} has more than {MAX_WILDCARDS} wildcards: split it into simpler patterns"
    return None


def _unbalanced(pattern: str, opening: str, closing: str) -> bool:
    depth = 0
    for char in pattern:
        if char == opening:
            depth += 1
            if opening == "[" and depth > 1:
                return True  # sets do not nest
        elif char == closing:
            depth -= 1
            if depth < 0:
                return True
    return depth != 0


def is_catch_all(patterns: Sequence[str]) -> bool:
    """Whether ``patterns`` match every file (``**/*``, ``*``) and leave none out: an item with
    them would join every request that names a file, so it is treated as ``always``."""
    cleaned = [_without_root(p) for p in patterns]
    return any(_CATCH_ALL.fullmatch(p) for p in cleaned) and not any(p.startswith("!") for p in cleaned)


@dataclass(frozen=True)
class GlobMatch:
    """Which path matched which pattern (for the reason a RequestContext gives)."""

    path: str
    pattern: str


class GlobSet:
    """The globs of one item, compiled once: a path matches when a pattern without ``!`` matches
    it and no ``!`` pattern does."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self._including: list[tuple[str, re.Pattern[str]]] = []
        self._excluding: list[re.Pattern[str]] = []
        for pattern in patterns:
            if pattern.startswith("!"):
                self._excluding.append(_compiled(pattern[1:]))
            else:
                self._including.append((pattern, _compiled(pattern)))

    def first_match(self, paths: Iterable[str]) -> GlobMatch | None:
        """The first of ``paths`` (in order) that these globs match, or None."""
        for path in paths:
            if any(excluding.search(path) for excluding in self._excluding):
                continue
            for pattern, including in self._including:
                if including.search(path):
                    return GlobMatch(path, pattern)
        return None


def _without_root(pattern: str) -> str:
    # `/src/**` and `./src/**` mean the project's src; a path named in a message has no root to
    # compare with, so the leading part is dropped. A trailing `/` means everything below.
    negated = pattern.startswith("!")
    body = pattern[1:] if negated else pattern
    while body.startswith(("./", "/")):
        body = body[2:] if body.startswith("./") else body[1:]
    if body.endswith("/"):
        body += "**"
    return ("!" if negated else "") + body


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> re.Pattern[str]:
    """A pattern (already checked by :func:`glob_problem`) as a regex that finds it at the end
    of a path, starting at a folder boundary."""
    body = _without_root(pattern)
    return re.compile(r"(?:\A|/)" + _translate(body) + r"\Z", re.IGNORECASE)


def _translate(body: str) -> str:
    out: list[str] = []
    index, depth = 0, 0
    while index < len(body):
        char = body[index]
        if char == "*":
            end = index
            while end < len(body) and body[end] == "*":
                end += 1
            whole_segment = (index == 0 or body[index - 1] in "/{,") and end - index >= 2
            if whole_segment and end < len(body) and body[end] == "/":
                out.append(r"(?:[^/]*/)*")  # `**/`: any number of folders, none included
                end += 1
            elif whole_segment and (end == len(body) or body[end] in "},"):
                out.append(r".*")  # a trailing `**`: everything below
            else:
                out.append(r"[^/]*")
            index = end
            continue
        if char == "?":
            out.append(r"[^/]")
        elif char == "[":
            close = body.index("]", index + 1)
            members = body[index + 1 : close]
            negated = members.startswith(("!", "^"))
            members = members[1:] if negated else members
            escaped = members.replace("\\", r"\\").replace("^", r"\^").replace("[", r"\[")
            out.append(f"[{'^' if negated else ''}{escaped}]")
            index = close + 1
            continue
        elif char == "{":
            depth += 1
            out.append("(?:")
        elif char == "}" and depth:
            depth -= 1
            out.append(")")
        elif char == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)
