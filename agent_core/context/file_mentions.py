"""File paths a chat names: in the words of a message, and in the URIs of attached resources.

Read conservatively, since a false path attaches a rule the message did not need: a word counts
when it has a ``/`` (``src/app/main.ts``) or ends in a known file extension (``utils.py``), and
anything in backticks that looks like a file name (``notes.adoc``) counts too; a library's name
(``Node.js``) never does. Work is bounded however long the message is.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

__all__ = ["MAX_PATH_CHARS", "path_of_uri", "paths_in_message"]

#: Only the start of a huge message (a pasted log) is read for paths, and only so many are kept.
MAX_SCANNED_CHARS = 200_000
MAX_PATHS = 200
#: Longer "paths" are not file paths (a minified line, a base64 blob).
MAX_PATH_CHARS = 260

# Extensions of files people name in messages about code and documents.
_EXTENSION_WORDS = """
astro bash bat c cc cfg cjs clj cmake conf cpp cs css csv cts cxx dart dockerfile env erb ex exs fs go
gql gradle graphql h hbs hcl hh hpp htm html ini ipynb java jl js json json5 jsonc jsx kt kts less lock
lua m md mdc mdx mjs ml mm mts nix php pl plist prisma proto ps1 py pyi r rb rs sass scala scss sh sol
sql svelte swift tf tfvars toml ts tsv tsx twig txt vue xml yaml yml zig zsh
"""
KNOWN_EXTENSIONS = frozenset(_EXTENSION_WORDS.split())
# Files people name without an extension.
_NAME_WORDS = "dockerfile makefile gemfile rakefile procfile jenkinsfile vagrantfile justfile brewfile"
KNOWN_NAMES = frozenset(_NAME_WORDS.split())
# Names of libraries that look like files ("we use Node.js"): never taken for one.
_LIBRARY_WORDS = "node.js vue.js next.js nuxt.js nest.js react.js express.js three.js chart.js d3.js p5.js ember.js socket.io"
LIBRARY_NAMES = frozenset(_LIBRARY_WORDS.split())

_BACKTICKED = re.compile(r"`([^`\n]{1,300})`")
_WORD = re.compile(r"[^\s`]+")
_LEADING = "([{<'\"@*_"
_TRAILING = ")]}>'\".,;:!?*_"
_LINE_SUFFIX = re.compile(r"(?::\d+){1,2}\Z|#L\d+(?:-L?\d+)?\Z")  # main.ts:42:7, main.ts#L10-L20
_EXTENSION = re.compile(r"\.([A-Za-z][A-Za-z0-9+_-]{0,9})\Z")


def paths_in_message(text: str) -> list[str]:
    """The file paths ``text`` names, in order of appearance, without repeats."""
    scanned = text[:MAX_SCANNED_CHARS]
    found: dict[str, None] = {}
    for match in _BACKTICKED.finditer(scanned):
        _keep(_as_path(match.group(1).strip(), loose=True), found)
    for match in _WORD.finditer(_BACKTICKED.sub(" ", scanned)):
        _keep(_as_path(match.group(0), loose=False), found)
        if len(found) >= MAX_PATHS:
            break
    return list(found)[:MAX_PATHS]


def path_of_uri(uri: str) -> str | None:
    """The file path in an MCP resource's URI (``file:///home/me/app/src/main.ts``,
    ``repo://org/app/src/main.ts``: whatever follows the scheme), or None when it names no file
    (``demo://greeting``)."""
    return _as_path(uri, loose=True)


def _keep(path: str | None, found: dict[str, None]) -> None:
    if path is not None and len(found) < MAX_PATHS:
        found.setdefault(path)


def _as_path(word: str, *, loose: bool) -> str | None:
    """``word`` as a normalised path, or None when it does not look like one. ``loose``: the word
    was marked as code (backticks) or is a URI, so any ``name.ext`` counts."""
    if " " in word or len(word) > MAX_PATH_CHARS * 2:
        return None
    word = word.lstrip(_LEADING).rstrip(_TRAILING)
    if "://" in word or word.startswith("file:"):
        parts = urlsplit(word)
        word = unquote(f"{parts.netloc}/{parts.path}" if parts.scheme != "file" else parts.path)
    word = _LINE_SUFFIX.sub("", word).replace("\\", "/")
    word = re.sub(r"/{2,}", "/", word)
    while word.startswith("./"):
        word = word[2:]
    word = word.rstrip("/")
    if not word or len(word) > MAX_PATH_CHARS or not any(c.isalnum() for c in word):
        return None
    name = word.rsplit("/", 1)[-1]
    extension = _EXTENSION.search(name)
    if "/" in word:
        return word
    if name.lower() in LIBRARY_NAMES:
        return None
    if name.lower() in KNOWN_NAMES:
        return word
    if extension is None or name.startswith("."):
        return word if loose and name.startswith(".") and len(name) > 1 else None  # `.env` in backticks
    if extension.group(1).lower() in KNOWN_EXTENSIONS:
        return word
    return word if loose else None
