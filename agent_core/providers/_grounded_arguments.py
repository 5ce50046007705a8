"""File names and addresses in a routed call's arguments come from the conversation, not the model.

A small local model asked for a ``path`` writes one whether or not the message names a file ("read
ideas.md" became ``/Users/michael.johnson``); the grammar keeps the JSON valid but cannot keep the
value true. So a required argument that names a file, a folder or an address is narrowed to the
values the conversation holds (the user's words, quoted values, earlier tool results), and when it
holds none the tool is not called: the reply asks for the value instead of a made-up one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from agent_core.providers.base import ChatMessage

__all__ = ["MAX_GROUNDED_VALUES", "ground_arguments"]

#: How many values from the conversation one argument may choose from (newest first).
MAX_GROUNDED_VALUES = 12
_MAX_SCANNED_CHARS = 20_000  # of each message: a pasted book does not make a long grammar
_MAX_VALUE_CHARS = 300

_PATH_WORDS = frozenset({"path", "file", "filename", "filepath", "dir", "directory", "folder"})
_ADDRESS_WORDS = frozenset({"url", "uri", "link", "href"})
_WORDS_OF_NAME = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")

_ADDRESS = re.compile(r"https?://[^\s\"'<>`)\]]+")
_QUOTED = re.compile(r"`([^`\n]{1,300})`|\"([^\"\n]{1,300})\"|'([^'\n]{1,300})'")
# A file name with an extension that has a letter ("ideas.md", "src/app.py"; not "0.9.2"), or
# anything with a slash ("docs/", "./notes").
_FILE_NAME = re.compile(r"^[\w.~-]*\.[A-Za-z][A-Za-z0-9]{0,7}$")
_TOKEN = re.compile(r"\S+")
_MARKUP = re.compile(r"</?[A-Za-z][^<>\n]{0,300}>")
_EDGE_PUNCTUATION = "\"'`()[]{}<>,;:!?"
_NOT_FILES = frozenset({"e.g", "i.e", "etc", "vs", "a.m", "p.m"})


def ground_arguments(
    schema: Mapping[str, Any], messages: Sequence[ChatMessage]
) -> tuple[dict[str, Any], list[str]]:
    """``schema`` (a routed call's required arguments) with each file, folder or address argument
    limited to the values ``messages`` hold, and the names of those for which they hold none."""
    grounded = dict(schema)
    properties = {name: dict(spec) for name, spec in schema.get("properties", {}).items()}
    ungrounded: list[str] = []
    for name, spec in properties.items():
        kind = _value_kind(name, spec)
        if kind is None:
            continue
        values = _values_in(messages, kind)
        if values:
            spec.pop("pattern", None)
            spec.pop("format", None)
            spec["enum"] = values
        else:
            ungrounded.append(name)
    grounded["properties"] = properties
    return grounded, ungrounded


def _value_kind(name: str, spec: Mapping[str, Any]) -> str | None:
    """ "path" or "address" for an argument naming a file or folder or an address; None otherwise
    (and for one whose values the schema already lists)."""
    if spec.get("type", "string") != "string" or "enum" in spec or "const" in spec:
        return None
    words = {word.lower() for word in _WORDS_OF_NAME.findall(name)}
    if words & _ADDRESS_WORDS or spec.get("format") == "uri":
        return "address"
    if words & _PATH_WORDS:
        return "path"
    return None


def _values_in(messages: Sequence[ChatMessage], kind: str) -> list[str]:
    """The values of ``kind`` the conversation holds, the latest written first, without repeats:
    the message's own words come after the context selected for it, so they come first here."""
    values: list[str] = []
    for message in reversed(messages):
        if message.role == "system":
            continue  # rules and references the user did not write in this chat
        text = message.content[-_MAX_SCANNED_CHARS:]
        for _, value in sorted(_candidates(text, kind), reverse=True):
            if value not in values:
                values.append(value)
            if len(values) == MAX_GROUNDED_VALUES:
                return values
    return values


def _candidates(text: str, kind: str) -> list[tuple[int, str]]:
    """Each value of ``kind`` in ``text`` with where it starts."""
    # Markup (the framing of the context selected for the message) names no file: blanked, with
    # the positions kept.
    text = _MARKUP.sub(lambda tag: " " * len(tag.group()), text)
    addresses = [(match.start(), match.group().rstrip(".")) for match in _ADDRESS.finditer(text)]
    if kind == "address":
        return addresses
    found: list[tuple[int, str]] = []
    for match in _QUOTED.finditer(text):
        quoted = next(group for group in match.groups() if group is not None).strip()
        # A quoted value is a name the user means ("`notes`"), unless it is a phrase or an address.
        if quoted and not any(c.isspace() for c in quoted) and not _ADDRESS.match(quoted):
            found.append((match.start(), quoted))
    for match in _TOKEN.finditer(text):
        word = match.group().strip(_EDGE_PUNCTUATION).rstrip(".")
        if not word or _ADDRESS.match(word) or word.lower() in _NOT_FILES:
            continue
        if "/" in word or "\\" in word or _FILE_NAME.match(word):
            found.append((match.start(), word))
    return [(at, value) for at, value in found if len(value) <= _MAX_VALUE_CHARS]
