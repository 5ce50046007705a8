"""Loading rules/*.md and references/*.md: every valid file loads, each fault becomes a Problem."""

from __future__ import annotations

import re
from pathlib import Path

from agent_core.agent._text_file import MAX_FILE_BYTES
from agent_core.agent.file_globs import is_catch_all
from agent_core.agent.frontmatter_folder import (
    MARKDOWN,
    FolderKind,
    HeaderedFile,
    load_folder,
    validate_header,
)
from agent_core.agent.items import FOLDER_OF_KIND, DocumentItem, DocumentKind, Problem
from agent_core.agent.schema import IncludeMode, ItemFrontmatter

__all__ = ["ITEM_SUFFIX", "MAX_ITEM_BYTES", "load_documents"]

ITEM_SUFFIX = MARKDOWN
MAX_ITEM_BYTES = MAX_FILE_BYTES


#: An agent-mode item whose description has fewer words (and no examples) is hard to select.
THIN_DESCRIPTION_WORDS = 4


def load_documents(root: Path, kind: DocumentKind, problems: list[Problem]) -> dict[str, DocumentItem]:
    """Every valid item file of one kind, by name, sorted by name."""
    return load_folder(root, _FOLDER_KINDS[kind], lambda file, found: _document(file, kind, found), problems)


def _document(file: HeaderedFile, kind: DocumentKind, problems: list[Problem]) -> DocumentItem | None:
    """One rule or reference, or None (with problems recorded) when it cannot be used."""
    path = file.path
    if file.header is None:
        problems.append(
            Problem(
                path,
                "no header; defaults are used (include: manual, priorityLevel: 500)",
                "add a '---' header with name, description, priorityLevel and include",
                line=1,
                severity="warning",
            )
        )
    meta = validate_header(file, ItemFrontmatter, _FOLDER_KINDS[kind], problems)
    if meta is None:
        return None
    if meta.name is not None and meta.name != file.name:
        problems.append(
            Problem(
                path,
                f"the header says name '{meta.name}' but the file is {path.name}; the file name is used",
                f"rename the file to {meta.name}{ITEM_SUFFIX} or change the name",
                file.line_of("name"),
                "warning",
            )
        )
    if not file.body.strip():
        problems.append(
            Problem(path, f"the {kind} has no text", "write its text below the header", severity="warning")
        )
    if (
        meta.include is IncludeMode.AGENT
        and not meta.examples
        and len(meta.description.split()) < THIN_DESCRIPTION_WORDS
    ):
        problems.append(
            Problem(
                path,
                f"include: agent, but the description {meta.description!r} is too thin for selection to "
                "find this " + kind + ": a message is matched against the description, the text and "
                "examples, and a few words match few messages",
                'say in a sentence when it applies ("How to write commit messages: subject line, body, '
                'issue links"), or add examples: with two or three typical requests that need it',
                file.line_of("description") or file.line_of("include"),
                "warning",
            )
        )
    include = meta.include
    if meta.globs and include is not IncludeMode.ALWAYS and is_catch_all(meta.globs):
        include = IncludeMode.ALWAYS
        problems.append(
            Problem(
                path,
                f"globs {', '.join(meta.globs)} match every file, so this {kind} is used as include: always",
                "write include: always and remove the globs, or narrow them to the files it is about "
                "(src/**/*.ts)",
                file.line_of("globs"),
                "warning",
            )
        )
    return DocumentItem(
        kind=kind,
        name=file.name,
        description=meta.description,
        priority_level=meta.priority_level,
        include=include,
        text=file.body,
        path=path,
        examples=tuple(meta.examples),
        globs=tuple(meta.globs),
    )


def _unquoted_glob_fix(header: str, first_line: int, line: int | None) -> str | None:
    """The fix for ``globs: *.ts``: YAML reads a leading ``*`` as an alias, so patterns that
    start with one must be quoted (Cursor's own headers are not YAML and allow it)."""
    if line is None:
        return None
    lines = header.split("\n")
    index = line - first_line
    if 0 <= index < len(lines) and re.match(r"\s*(globs\s*:\s*\[?\s*|-\s+)\*", lines[index]):
        return 'quote the patterns: globs: ["*.ts", "src/**/*.tsx"]'
    return None


_FOLDER_KINDS: dict[DocumentKind, FolderKind] = {
    kind: FolderKind(
        folder=FOLDER_OF_KIND[kind],
        noun=kind,
        too_large_fix=f"split it into several {kind}s",
        syntax_fix=_unquoted_glob_fix,
    )
    for kind in FOLDER_OF_KIND
}
