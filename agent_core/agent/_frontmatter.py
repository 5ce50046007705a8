"""Markdown files with a YAML header between ``---`` lines."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FrontmatterError", "SplitFile", "join_frontmatter", "split_frontmatter"]

_FENCE = "---"


class FrontmatterError(ValueError):
    """The header is opened but never closed."""


@dataclass(frozen=True)
class SplitFile:
    header: str | None  # None when the file has no header at all
    header_first_line: int  # 1-based line in the file where the header text starts
    body: str


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
            body = "\n".join(lines[index + 1 :])
            return SplitFile(header=header, header_first_line=2, body=body.removeprefix("\n"))
    raise FrontmatterError("the header opened with '---' on line 1 is never closed")


def join_frontmatter(header_yaml: str, body: str) -> str:
    body = body if body.endswith("\n") or not body else body + "\n"
    return f"{_FENCE}\n{header_yaml.rstrip()}\n{_FENCE}\n\n{body}"
