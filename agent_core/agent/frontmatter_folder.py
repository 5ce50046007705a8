"""One loader for the agent folder's kinds of Markdown files with a YAML header: rules,
references and sub-agents (and skills: ``skills/NAME/SKILL.md``).

The loader does what the kinds share. It walks the kind's folder: which entries are its files (its
layout), links that lead out of the agent folder, entries that are not regular files (a named pipe
would block), the size cap, NUL bytes and text that is not UTF-8 (``_text_file``); it splits the
header from the body (``_frontmatter``), reads the header as YAML safely with its aliases bounded
(``_yaml_source``), and keeps one item per name. Every fault is a ``Problem`` with its file, line
and fix, and the other files still load.

A kind brings a ``FolderKind`` (its folder, its layout, whether a header is required...) and a
parser that turns one ``HeaderedFile`` (path, header mapping, header line, body) into its item, or
records why it cannot. Kinds whose files are written for Claude Code (sub-agents, skills) read a
header that is not valid YAML as Claude Code does (``key: rest of line``, ``_loose_header``), with
a warning that says so.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from agent_core.agent._frontmatter import FrontmatterError, split_frontmatter
from agent_core.agent._loose_header import read_loose_header
from agent_core.agent._text_file import outside_problem, read_text
from agent_core.agent._yaml_source import (
    YamlDocument,
    YamlSyntaxError,
    describe_validation_error,
    parse_yaml,
    validation_errors,
)
from agent_core.agent.items import Problem
from agent_core.agent.names import name_problem, suggest_name

__all__ = [
    "MARKDOWN",
    "FolderKind",
    "HeaderedFile",
    "load_folder",
    "parse_headered_text",
    "read_headered_file",
    "validate_header",
]

MARKDOWN = ".md"
_LEFT_BY_EDITORS = (".tmp", ".swp")  # and names ending in "~": not worth a warning

#: A kind's own fix for a YAML error: (header text, its first line, the error's line) -> fix or None.
SyntaxFix = Callable[[str, int, int | None], str | None]


@dataclass(frozen=True)
class FolderKind:
    """Where a kind's files are in the agent folder and how they are read."""

    folder: str  # the folder in the agent folder: "rules"
    noun: str  # one item, as messages name it: "rule", "sub-agent"
    too_large_fix: str  # the fix for a file over the size cap
    # None: every *.md directly in the folder is one item, named by its file. A file name
    # ("SKILL.md"): every sub-folder holding that file is one item, named by the sub-folder.
    entry: str | None = None
    # Other files and sub-folders get a warning; off where they have a use of their own (the
    # agent folders that sub-agents name live in subagents/).
    mention_others: bool = True
    # The name the file (or sub-folder) gives is the item's name, checked before the file is read;
    # off where the header may name the item (the parser checks the name then).
    named_by_file: bool = True
    # Why a file of this kind must have a header; None: a file may have none (the parser is handed
    # ``header=None``) and an empty header is an empty mapping.
    header_needed: str | None = None
    syntax_fix: SyntaxFix | None = None
    # A header that is not valid YAML is read as Claude Code reads it (``key: rest of line``), with
    # a warning, instead of leaving the item out: files written for Claude Code rely on that.
    loose_header: bool = False


@dataclass(frozen=True)
class HeaderedFile:
    """One file of a kind, read and split: what a kind's parser is handed."""

    path: Path
    name: str  # the name the file (or its sub-folder) gives the item
    header: dict[str, Any] | None  # None: the file has no header (where the kind allows that)
    document: YamlDocument | None  # the parsed header, to find a key's line
    header_line: int  # the file's line where the header text starts (0: no header)
    body: str
    body_offset: int = 0  # characters before the body in the file's text (``SplitFile.body_offset``)

    def line_of(self, *keys: str | int) -> int | None:
        """The line of the header's value at ``keys`` (or of its nearest ancestor), when known."""
        return self.document.line_of(list(keys)) if self.document else None


class _Item(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def path(self) -> Path | None: ...


ItemT = TypeVar("ItemT", bound=_Item)
ModelT = TypeVar("ModelT", bound=BaseModel)


def load_folder(
    root: Path,
    kind: FolderKind,
    parse: Callable[[HeaderedFile, list[Problem]], ItemT | None],
    problems: list[Problem],
) -> dict[str, ItemT]:
    """Every valid item of ``kind`` in the agent folder ``root``, by name, sorted by name."""
    folder = root / kind.folder
    if not folder.is_dir():
        if folder.exists() or folder.is_symlink():
            each = f"one {MARKDOWN} file" if kind.entry is None else f"one sub-folder with a {kind.entry}"
            problems.append(
                Problem(
                    folder,
                    f"'{kind.folder}' is a file, not a folder, so no {kind.noun} is read",
                    f"rename the file, then create a folder {kind.folder}/ with {each} per {kind.noun}",
                )
            )
        return {}
    loaded: list[ItemT] = []
    for path in _entries(root, folder, kind, problems):
        name = _name_of(path, kind)
        if kind.named_by_file and (problem := name_problem(name)):
            renamed = (
                f"file to {suggest_name(name)}{MARKDOWN}"
                if kind.entry is None
                else f"folder to {suggest_name(name, lower=True)}"  # a skill's: the standard's form
            )
            problems.append(Problem(path, f"file name: {problem}", f"rename the {renamed}"))
            continue
        file = read_headered_file(path, kind, problems)
        if file is not None and (item := parse(file, problems)) is not None:
            loaded.append(item)
    return _one_per_name(loaded, kind, folder, problems)


def read_headered_file(path: Path, kind: FolderKind, problems: list[Problem]) -> HeaderedFile | None:
    """The file ``path`` of ``kind``, read and split, or None with the problems recorded."""
    text = read_text(path, problems, too_large_fix=kind.too_large_fix)
    return None if text is None else parse_headered_text(path, text, kind, problems)


def parse_headered_text(
    path: Path, text: str, kind: FolderKind, problems: list[Problem]
) -> HeaderedFile | None:
    """``text`` split and its header read (as if it were the file ``path``), or None with the
    problems recorded: an editor checks a text this way before saving it."""
    try:
        parts = split_frontmatter(text)
    except FrontmatterError as error:
        problems.append(Problem(path, str(error), "add a line with just '---' after the header", line=1))
        return None
    name = _name_of(path, kind)
    if parts.header is None:
        if kind.header_needed is None:
            return HeaderedFile(path, name, None, None, 0, parts.body)
        problems.append(
            Problem(
                path,
                f"no header: {kind.header_needed}",
                "add a '---' header with name and description",
                line=1,
            )
        )
        return None
    try:
        document = parse_yaml(parts.header, first_line=parts.header_first_line)
    except YamlSyntaxError as error:
        fix = error.fix
        if fix is None and kind.syntax_fix is not None:
            fix = kind.syntax_fix(parts.header, parts.header_first_line, error.line)
        fix = fix or "fix the YAML between the '---' lines"
        if kind.loose_header and not error.hostile:
            problems.append(
                Problem(
                    path,
                    f"header: {error}; read line by line instead ('key: rest of line', as Claude Code "
                    "reads it)",
                    f"{fix} to have it read exactly as written",
                    error.line,
                    "warning",
                )
            )
            loose = read_loose_header(parts.header)
            return HeaderedFile(
                path, name, dict(loose), None, parts.header_first_line, parts.body, parts.body_offset
            )
        problems.append(Problem(path, f"header: {error}", fix, error.line))
        return None
    data = {} if document.data is None and kind.header_needed is None else document.data
    if not isinstance(data, Mapping):
        problems.append(
            Problem(
                path,
                "the header must be a mapping of keys to values",
                "write `key: value` lines between the '---' lines",
                parts.header_first_line,
            )
        )
        return None
    return HeaderedFile(
        path, name, dict(data), document, parts.header_first_line, parts.body, parts.body_offset
    )


def validate_header(
    file: HeaderedFile, model: type[ModelT], kind: FolderKind, problems: list[Problem]
) -> ModelT | None:
    """The header as ``model``, or None with each fault recorded at its line."""
    try:
        return model.model_validate(file.header or {})
    except ValidationError as error:
        for item in validation_errors(error):
            message, fix = describe_validation_error(item, model)
            problems.append(
                Problem(
                    file.path,
                    f"header: {message}",
                    f"{fix}; this {kind.noun} is left out until then",
                    file.line_of(*item["loc"]),
                )
            )
        return None


def _name_of(path: Path, kind: FolderKind) -> str:
    return path.stem if kind.entry is None else path.parent.name


def _entries(root: Path, folder: Path, kind: FolderKind, problems: list[Problem]) -> Iterator[Path]:
    """The files of ``kind`` in ``folder``, sorted by name; what is refused is recorded."""
    real_root = root.resolve()
    # Resolving every file costs a few system calls per path component (seconds for thousands
    # of items): a plain file in a folder that is itself inside the agent folder is inside too, so
    # only links, or a linked-out folder, are followed.
    folder_inside = folder.resolve().is_relative_to(real_root)
    with os.scandir(folder) as listing:
        listed = sorted((entry.name, entry.is_symlink()) for entry in listing)
    for name, is_link in listed:
        if name.startswith("."):
            continue
        path = folder / name
        file = _kind_file(path, kind, problems) if kind.entry is None else _folder_entry(path, kind, problems)
        if file is None:
            continue
        linked = is_link or not folder_inside or (file != path and file.is_symlink())
        if linked and (escape := outside_problem(file, root, real_root=real_root)):
            problems.append(escape)
            continue
        yield file


def _kind_file(path: Path, kind: FolderKind, problems: list[Problem]) -> Path | None:
    """``path`` when it is a file of ``kind`` directly in its folder (``entry`` is None)."""
    if path.is_dir():
        if path.suffix == MARKDOWN or kind.mention_others:
            not_read = (
                f": sub-folders of {kind.folder}/ are not read"
                if kind.mention_others
                else ", so it is not read"
            )
            problems.append(
                Problem(
                    path,
                    f"a folder, not a {kind.noun} file{not_read}",
                    f"put each {kind.noun} as a {MARKDOWN} file directly in {kind.folder}/",
                    severity="error" if path.suffix == MARKDOWN else "warning",
                )
            )
        return None
    if path.suffix != MARKDOWN:
        if kind.mention_others and not _left_by_an_editor(path):
            problems.append(
                Problem(
                    path,
                    f"not a {kind.noun} file (only {MARKDOWN} files are read)",
                    f"rename it to {path.stem}{MARKDOWN} to use it",
                    severity="warning",
                )
            )
        return None
    return path


def _folder_entry(path: Path, kind: FolderKind, problems: list[Problem]) -> Path | None:
    """``path/ENTRY`` when ``path`` is a sub-folder holding the file ``kind.entry``."""
    if not path.is_dir():
        if kind.mention_others and not _left_by_an_editor(path):
            problems.append(
                Problem(
                    path,
                    f"not a {kind.noun}: each {kind.noun} is a sub-folder of {kind.folder}/ with a {kind.entry}",
                    f"move it into a folder {kind.folder}/{suggest_name(path.stem)}/ as {kind.entry}",
                    severity="warning",
                )
            )
        return None
    file = path / str(kind.entry)
    if not (file.exists() or file.is_symlink()):
        problems.append(
            Problem(
                path,
                f"the folder has no {kind.entry}, so it is not a {kind.noun}",
                f"add {kind.entry} to it, or move the folder out of {kind.folder}/",
                severity="warning",
            )
        )
        return None
    return file


def _left_by_an_editor(path: Path) -> bool:
    return path.name.endswith("~") or path.suffix in _LEFT_BY_EDITORS


def _one_per_name(
    loaded: list[ItemT], kind: FolderKind, folder: Path, problems: list[Problem]
) -> dict[str, ItemT]:
    """One item per name, ignoring case: of two, the one whose file gives it its name wins, then
    the first by file name (``loaded`` is in file order)."""
    loaded = sorted(
        loaded,
        key=lambda item: (item.name.lower(), item.path is None or _name_of(item.path, kind) != item.name),
    )
    kept: dict[str, ItemT] = {}
    for item in loaded:
        twin = kept.get(item.name.lower())
        if twin is None:
            kept[item.name.lower()] = item
            continue
        shown = twin.path.relative_to(folder) if twin.path and twin.path.is_relative_to(folder) else twin.name
        problems.append(
            Problem(
                item.path or folder,
                f"another {kind.noun} ({shown}) is named '{twin.name}' (names differ only in case, or not at all)",
                "rename one of the two; this one is left out",
            )
        )
    return {item.name: item for item in sorted(kept.values(), key=lambda item: item.name)}
