"""Loading rules/*.md and references/*.md: every valid file loads, each fault becomes a Problem."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_core.agent._frontmatter import FrontmatterError, split_frontmatter
from agent_core.agent._text_file import MAX_FILE_BYTES, outside_problem, read_text
from agent_core.agent._yaml_source import (
    YamlDocument,
    YamlSyntaxError,
    describe_validation_error,
    parse_yaml,
    validation_errors,
)
from agent_core.agent.file_globs import is_catch_all
from agent_core.agent.items import FOLDER_OF_KIND, DocumentItem, DocumentKind, Problem
from agent_core.agent.names import name_problem, suggest_name
from agent_core.agent.schema import IncludeMode, ItemFrontmatter

__all__ = ["ITEM_SUFFIX", "MAX_ITEM_BYTES", "load_document", "load_documents"]

ITEM_SUFFIX = ".md"
MAX_ITEM_BYTES = MAX_FILE_BYTES


#: An agent-mode item whose description has fewer words (and no examples) is hard to select.
THIN_DESCRIPTION_WORDS = 4


def load_documents(root: Path, kind: DocumentKind, problems: list[Problem]) -> dict[str, DocumentItem]:
    """Every valid item file of one kind, by name, sorted by name."""
    folder = root / FOLDER_OF_KIND[kind]
    if not folder.is_dir():
        if folder.exists() or folder.is_symlink():
            problems.append(
                Problem(
                    folder,
                    f"'{folder.name}' is a file, not a folder, so no {kind} is read",
                    f"rename the file, then create a folder {folder.name}/ with one {ITEM_SUFFIX} file "
                    f"per {kind}",
                )
            )
        return {}
    items: dict[str, DocumentItem] = {}
    lowered: dict[str, Path] = {}
    real_root = root.resolve()
    # Resolving every file costs a few system calls per path component (seconds for thousands
    # of items): a plain file in a folder that is itself inside the agent folder is inside too, so
    # only links, or a linked-out folder, are followed.
    folder_inside = folder.resolve().is_relative_to(real_root)
    with os.scandir(folder) as entries:
        listed = sorted((entry.name, entry.is_symlink()) for entry in entries)
    for name, is_link in listed:
        path = folder / name
        if name.startswith("."):
            continue
        if path.is_dir():
            problems.append(
                Problem(
                    path,
                    f"a folder, not a {kind} file: sub-folders of {folder.name}/ are not read",
                    f"put each {kind} as a {ITEM_SUFFIX} file directly in {folder.name}/",
                    severity="error" if path.suffix == ITEM_SUFFIX else "warning",
                )
            )
            continue
        if path.suffix != ITEM_SUFFIX:
            if not path.name.endswith("~") and path.suffix not in {".tmp", ".swp"}:
                problems.append(
                    Problem(
                        path,
                        f"not a {kind} file (only {ITEM_SUFFIX} files are read)",
                        f"rename it to {path.stem}{ITEM_SUFFIX} to use it",
                        severity="warning",
                    )
                )
            continue
        if (is_link or not folder_inside) and (escape := outside_problem(path, root, real_root=real_root)):
            problems.append(escape)
            continue
        item = load_document(path, kind, problems)
        if item is None:
            continue
        if item.name.lower() in lowered:
            problems.append(
                Problem(
                    path,
                    f"another {kind} is named '{lowered[item.name.lower()].stem}' "
                    "(the names differ only in case)",
                    "rename one of the two files; this one is left out",
                )
            )
            continue
        lowered[item.name.lower()] = path
        items[item.name] = item
    return items


def load_document(path: Path, kind: DocumentKind, problems: list[Problem]) -> DocumentItem | None:
    """One rule or reference file, or None (with problems recorded) when it cannot be used."""
    name = path.stem
    if problem := name_problem(name):
        problems.append(
            Problem(path, f"file name: {problem}", f"rename the file to {suggest_name(name)}{ITEM_SUFFIX}")
        )
        return None
    text = read_text(path, problems, too_large_fix=f"split it into several {kind}s")
    if text is None:
        return None
    try:
        parts = split_frontmatter(text)
    except FrontmatterError as error:
        problems.append(Problem(path, str(error), "add a line with just '---' after the header", line=1))
        return None
    header: dict[str, Any] = {}
    document: YamlDocument | None = None
    if parts.header is None:
        problems.append(
            Problem(
                path,
                "no header; defaults are used (include: manual, priorityLevel: 500)",
                "add a '---' header with name, description, priorityLevel and include",
                line=1,
                severity="warning",
            )
        )
    else:
        try:
            document = parse_yaml(parts.header, first_line=parts.header_first_line)
        except YamlSyntaxError as error:
            fix = error.fix or _unquoted_glob_fix(parts.header, parts.header_first_line, error.line)
            problems.append(
                Problem(path, f"header: {error}", fix or "fix the YAML between the '---' lines", error.line)
            )
            return None
        if document.data is not None and not isinstance(document.data, Mapping):
            problems.append(
                Problem(
                    path,
                    "the header must be a mapping of keys to values",
                    "write `key: value` lines between the '---' lines",
                    parts.header_first_line,
                )
            )
            return None
        header = dict(document.data or {})
    try:
        meta = ItemFrontmatter.model_validate(header)
    except ValidationError as error:
        for item in validation_errors(error):
            message, fix = describe_validation_error(item, ItemFrontmatter)
            line = document.line_of(list(item["loc"])) if document else None
            problems.append(
                Problem(path, f"header: {message}", f"{fix}; this {kind} is left out until then", line)
            )
        return None
    if meta.name is not None and meta.name != name:
        problems.append(
            Problem(
                path,
                f"the header says name '{meta.name}' but the file is {path.name}; the file name is used",
                f"rename the file to {meta.name}{ITEM_SUFFIX} or change the name",
                document.line_of(["name"]) if document else None,
                "warning",
            )
        )
    if not parts.body.strip():
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
                (document.line_of(["description"]) or document.line_of(["include"])) if document else None,
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
                document.line_of(["globs"]) if document else None,
                "warning",
            )
        )
    return DocumentItem(
        kind=kind,
        name=name,
        description=meta.description,
        priority_level=meta.priority_level,
        include=include,
        text=parts.body,
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
