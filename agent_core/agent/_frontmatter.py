"""Markdown files with a YAML header between ``---`` lines."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FrontmatterError", "RawParts", "SplitFile", "join_frontmatter", "split_frontmatter", "split_raw"]

_FENCE = "---"


class FrontmatterError(ValueError):
    """The header is opened but never closed."""


@dataclass(frozen=True)
class SplitFile:
    header: str | None  # None when the file has no header at all
    header_first_line: int  # 1-based line in the file where the header text starts
    body: str
    # Characters before the body in the text as read (byte-order mark dropped, line breaks as \n).
    body_offset: int = 0


def split_frontmatter(text: str) -> SplitFile:
    """Separate the YAML header from the markdown body.

    Raises:
        FrontmatterError: the file opens a header with ``---`` and never closes it.
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != _FENCE:
        return SplitFile(header=None, header_first_line=0, body=text)
    for index in range(1, len(lines)):
        if lines[index].rstrip() in (_FENCE, "..."):
            header = "\n".join(lines[1:index])
            body = "\n".join(lines[index + 1 :]).removeprefix("\n")
            return SplitFile(header, 2, body, len(text) - len(body))
    raise FrontmatterError("the header opened with '---' on line 1 is never closed")


def join_frontmatter(header_yaml: str, body: str) -> str:
    body = body if body.endswith("\n") or not body else body + "\n"
    return f"{_FENCE}\n{header_yaml.rstrip()}\n{_FENCE}\n\n{body}"


@dataclass(frozen=True)
class RawParts:
    """A markdown file cut into its exact pieces, so a save can keep the bytes it does not change."""

    opening: str  # the '---' line with its line break ('' when the file has no header)
    header: str  # the YAML between the fences, line breaks as in the file
    closing: str  # the closing fence line with its line break
    rest: str  # everything after the header, as in the file


def split_raw(text: str) -> RawParts:
    """Cut ``text`` (without a byte-order mark) into header and rest, keeping every byte.

    Raises:
        FrontmatterError: the file opens a header with ``---`` and never closes it.
    """
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != _FENCE:
        return RawParts(opening="", header="", closing="", rest=text)
    for index in range(1, len(lines)):
        if lines[index].rstrip() in (_FENCE, "..."):
            return RawParts(
                opening=lines[0],
                header="".join(lines[1:index]),
                closing=lines[index],
                rest="".join(lines[index + 1 :]),
            )
    raise FrontmatterError("the header opened with '---' on line 1 is never closed")
