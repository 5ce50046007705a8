"""The text of one Claude Code agent file, made into a sub-agent file ContextDesk reads.

Most files are copied byte for byte. A few need their header found or written first: a file
indented as a whole or starting with blank lines (its ``---`` is not on the first line), a header
missing its opening or closing ``---``, a file with no header at all (its whole text is the prompt;
the description is taken from its text), and a file renamed because another one has its name
(its ``name:`` line is rewritten). Each change is said in a sentence for the import report.
"""

from __future__ import annotations

import json
import re
import textwrap
from dataclasses import dataclass

from agent_core.agent._frontmatter import FrontmatterError, join_frontmatter, split_frontmatter, split_raw
from agent_core.agent._loose_header import read_loose_header

__all__ = ["AgentText", "described_by_text", "find_header", "renamed", "with_header"]

_FENCE = "---"
_NAME_LINE = re.compile(r"^name\s*:")
_MAX_HEADER_LINES = 200  # a header found without its fences is a few key lines, never a whole file
_DESCRIPTION_CHARACTERS = 300
_DASHES = re.compile(r"^-{3,}\s*$")
_RULE = re.compile(r"^([-*_])(\s*\1){2,}\s*$")  # a thematic break: ---, ***, _ _ _
_MARKUP = re.compile(r"\*\*|__|`|^#+\s*|^>\s*|^[-*+]\s+|^\d+\.\s+")


@dataclass(frozen=True)
class AgentText:
    """A file's text with its header found (or not)."""

    text: str  # the text to write when nothing else changes (the file's own, or repaired)
    header: str | None  # the header's text, None when the file has none
    repair: str | None = None  # what was done to find the header, for the report


def find_header(text: str) -> AgentText:
    """``text`` with its header: between ``---`` lines at the start, or recovered from the few ways
    real files get it wrong."""
    original, text = text, text.removeprefix("\ufeff")
    try:
        header = split_frontmatter(text).header
    except FrontmatterError:
        return _unclosed(text)
    if header is not None:
        return AgentText(original, header)  # copied as it is, byte-order mark and all
    shifted = textwrap.dedent(text).lstrip("\r\n\t ")
    if shifted != text and shifted.startswith(_FENCE):
        try:
            parts = split_frontmatter(shifted)
        except FrontmatterError:
            return AgentText(text, None)
        if parts.header is not None:
            repair = "its header did not start on the first line (blank lines or indentation before it); the copy starts with it"
            return AgentText(join_frontmatter(parts.header, parts.body), parts.header, repair)
    return _without_opening_fence(text)


def _without_opening_fence(text: str) -> AgentText:
    """A header whose first ``---`` line is missing: key lines, then a ``---`` line."""
    lines = text.replace("\r\n", "\n").lstrip("\n").split("\n")
    for index, line in enumerate(lines[:_MAX_HEADER_LINES]):
        if line.rstrip() == _FENCE:
            header = "\n".join(lines[:index])
            if index and _is_header(header):
                body = "\n".join(lines[index + 1 :]).removeprefix("\n")
                repair = "its header had no opening '---' line; the copy has one"
                return AgentText(join_frontmatter(header, body), header, repair)
            break
    return AgentText(text, None)


def _unclosed(text: str) -> AgentText:
    """A header opened with ``---`` and not closed by a ``---`` line: closed by a longer run of
    dashes (``--------``, which Claude Code takes for its ``---``), or else ending at the first
    blank line after its key lines."""
    lines = text.replace("\r\n", "\n").split("\n")
    start = next((i for i, line in enumerate(lines[1:], start=1) if line.strip()), len(lines))
    window = list(enumerate(lines[start:_MAX_HEADER_LINES], start=start))
    end = next((i for i, line in window if _DASHES.match(line)), None)
    repair = "its header's closing line was a longer run of dashes, not '---'; the copy has '---'"
    if end is None:
        end = next((i for i, line in window if not line.strip()), None)
        repair = (
            "its header's closing '---' line was missing (the header is taken to end at the first blank line)"
        )
    header = "\n".join(lines[start:end])
    if end is None or not _is_header(header):
        return AgentText(text, None)
    return AgentText(join_frontmatter(header, "\n".join(lines[end + 1 :]).removeprefix("\n")), header, repair)


def _is_header(text: str) -> bool:
    first = text.split("\n", 1)[0]
    values = read_loose_header(text)
    return bool(values) and first.split(":", 1)[0] in values and ("description" in values or "name" in values)


def renamed(found: AgentText, name: str) -> str:
    """``found``'s text with its header's ``name:`` set to ``name`` (the rest kept as it is)."""
    mark = "\ufeff" if found.text.startswith("\ufeff") else ""
    parts = split_raw(found.text.removeprefix(mark))
    lines = parts.header.splitlines(keepends=True)
    newline = "\r\n" if parts.opening.endswith("\r\n") else "\n"
    line = f"name: {json.dumps(name)}{newline}"
    for index, old in enumerate(lines):
        if _NAME_LINE.match(old):
            end = index + 1
            while end < len(lines) and lines[end][:1] in (" ", "\t"):  # the old value's own lines
                end += 1
            lines[index:end] = [line]
            break
    else:
        lines.insert(0, line)
    return mark + parts.opening + "".join(lines) + parts.closing + parts.rest


def with_header(name: str, description: str, text: str) -> str:
    """``text`` (a file without a header, all of it the prompt) under a header naming it."""
    header = f"name: {json.dumps(name)}\ndescription: {json.dumps(description, ensure_ascii=False)}"
    return join_frontmatter(header, text.removeprefix("\ufeff"))


def described_by_text(text: str) -> str | None:
    """A description for a file without one: its first heading and its first paragraph of prose
    (``Heading: paragraph``), markup taken out, at most 300 characters; None when it has neither."""
    heading: str | None = None
    paragraph: list[str] = []
    in_code = False
    for raw in text.replace("\r\n", "\n").split("\n"):
        line = raw.strip()
        if line.startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code or line.startswith(("|", "<!--", "<")) or _RULE.match(line):
            continue
        if not line:
            if paragraph:
                break
            continue
        if line.startswith("#"):
            if paragraph:
                break
            heading = heading or _plain(line)
            continue
        paragraph.append(_plain(line))
    words = " ".join(part for part in (heading, " ".join(paragraph)) if part)
    if heading and paragraph:
        words = f"{heading}: {' '.join(paragraph)}"
    return _shortened(words) if words else None


def _plain(line: str) -> str:
    return " ".join(_MARKUP.sub("", line).split())


def _shortened(text: str) -> str:
    if len(text) <= _DESCRIPTION_CHARACTERS:
        return text
    cut = text[: _DESCRIPTION_CHARACTERS - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"
