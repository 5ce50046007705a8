"""Cursor rules: ``.cursor/rules/`` (``.mdc`` and ``.md`` files), the older ``.cursorrules`` file,
and ``.cursor/rules`` written as one plain file by older Cursor versions.

A project is imported whole: every rule file, and ``.cursorrules`` too when both exist (Cursor
reads both). One rule file given as the source imports that rule only.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from agent_core.agent._frontmatter import FrontmatterError, split_frontmatter
from agent_core.agent.importers._common import (
    AgentImportError,
    ImportedAgent,
    Importer,
    ImportReport,
    read_rule_text,
)
from agent_core.agent.importers._cursor_globs import cursor_attachment
from agent_core.agent.importers._cursor_header import read_cursor_header
from agent_core.agent.schema import IncludeMode
from agent_core.plugins import Register

__all__ = ["detects_cursor_rules", "find_cursor_rules", "import_cursor_rules", "register_importers"]

_LEGACY_FILE = ".cursorrules"
_RULE_SUFFIXES = (".mdc", ".md")
_HEADER_KEYS = {"description", "globs", "alwaysApply"}


@dataclass(frozen=True)
class _CursorSources:
    """The rule files of one Cursor project."""

    folder: Path | None = None  # .cursor/rules as a folder
    plain_files: tuple[Path, ...] = ()  # .cursorrules and a .cursor/rules that is a file


def find_cursor_rules(source: Path) -> Path | None:
    """The ``.cursor/rules`` folder meant by ``source`` (a project, ``.cursor`` or the folder itself)."""
    for candidate, suffixes in (
        (source / ".cursor" / "rules", _RULE_SUFFIXES),
        (source / "rules", _RULE_SUFFIXES if source.name == ".cursor" else (".mdc",)),
        (source, _RULE_SUFFIXES if _in_cursor_rules(source / "x") else (".mdc",)),
    ):
        # Outside a .cursor folder only .mdc counts: rules/*.md is also a ContextDesk agent's layout.
        if candidate.is_dir() and any(p.suffix in suffixes for p in candidate.rglob("*")):
            return candidate
    return None


def _find_sources(project: Path) -> _CursorSources:
    plain = [project / _LEGACY_FILE, project / ".cursor" / "rules"]
    if project.name == ".cursor":
        plain += [project.parent / _LEGACY_FILE, project / "rules"]
    return _CursorSources(
        folder=find_cursor_rules(project), plain_files=tuple(p for p in dict.fromkeys(plain) if p.is_file())
    )


def _in_cursor_rules(path: Path) -> bool:
    parts = path.parts
    return any(a == ".cursor" and b == "rules" for a, b in pairwise(parts))


def _is_plain_rules_file(path: Path) -> bool:
    return path.name == _LEGACY_FILE or (path.name == "rules" and path.parent.name == ".cursor")


def detects_cursor_rules(source: Path) -> bool:
    """A project (or ``.cursor`` folder) with Cursor rules, or one rule file: ``.mdc``, ``.md`` in
    ``.cursor/rules``, ``.cursorrules`` or a plain-file ``.cursor/rules``."""
    if source.is_dir():
        sources = _find_sources(source)
        return sources.folder is not None or bool(sources.plain_files)
    return (
        source.suffix == ".mdc"
        or _is_plain_rules_file(source)
        or (source.suffix == ".md" and _in_cursor_rules(source))
    )


def _import_detected(source: Path, *, copy_secrets: bool) -> ImportedAgent:
    return import_cursor_rules(source)  # rules hold no secrets


def register_importers(register: Register[Importer]) -> None:
    """The Cursor importer: project rules (.mdc, .md) and the older .cursorrules file."""
    register(
        "cursor",
        Importer(
            "Cursor rules (.cursor/rules/*.mdc or .md, .cursorrules, or one such file)",
            detects_cursor_rules,
            _import_detected,
            combines=True,
        ),
    )


def import_cursor_rules(source: Path) -> ImportedAgent:
    """Rules from Cursor: alwaysApply or catch-all globs -> always; a description -> agent;
    neither -> manual; globs are kept (see ``_cursor_globs``); ``.cursorrules`` (and a plain-file
    ``.cursor/rules``) -> one rule, always.

    Raises:
        AgentImportError: ``source`` holds no Cursor rule.
    """
    imported = ImportedAgent(report=ImportReport("Cursor rules"))
    if source.is_file():
        if _is_plain_rules_file(source):
            _import_plain_file(source, imported)
        else:
            _import_rule(source, Path(source.stem), imported)
        return imported
    sources = _find_sources(source)
    if sources.folder is None and not sources.plain_files:
        raise AgentImportError(
            f"no Cursor rules in {source}: expected .cursor/rules/*.mdc (or .md) or .cursorrules"
        )
    if sources.folder is not None:
        # Not only ordinary files: a named pipe or a device is reported, never silently passed over.
        for file in sorted(p for p in sources.folder.rglob("*") if not p.is_dir()):
            relative = file.relative_to(sources.folder)
            if file.suffix in _RULE_SUFFIXES:
                _import_rule(file, relative.with_suffix(""), imported)
            elif not file.name.startswith("."):
                imported.report.skipped.append(
                    f"rules/{relative.as_posix()}: Cursor reads only .mdc and .md rule files; "
                    "if it is a rule, rename it to .mdc and import again"
                )
    for plain in sources.plain_files:
        _import_plain_file(plain, imported)
    return imported


def _import_plain_file(file: Path, imported: ImportedAgent) -> None:
    # The whole file is the rule's text, and Cursor added it to every request.
    where = ".cursorrules" if file.name == _LEGACY_FILE else ".cursor/rules (a file)"
    try:
        text = read_rule_text(file)
    except AgentImportError as error:
        imported.report.skipped.append(f"{where}: {error}")
        return
    imported.add_document(
        "rule",
        "cursorrules" if file.name == _LEGACY_FILE else "cursor-rules",
        description=f"Project rules from {where}",
        priority_level=100,
        include=IncludeMode.ALWAYS,
        text=text,
    )


def _import_rule(file: Path, relative: Path, imported: ImportedAgent) -> None:
    report = imported.report
    shown = f"{relative.as_posix()}{file.suffix}"
    try:
        parts = split_frontmatter(read_rule_text(file))
    except (AgentImportError, FrontmatterError) as error:
        report.skipped.append(f"{shown}: {error}; fix the file and import again")
        return
    header = read_cursor_header(parts.header or "")
    description = header.get("description", "")
    always = header.get("alwaysApply", "").lower() == "true"
    attachment = cursor_attachment(parts.header or "", description=description, always_apply=always)
    include = attachment.include
    report.skipped += [f"{shown}: {dropped}" for dropped in attachment.dropped]
    for key in sorted(set(header) - _HEADER_KEYS):
        report.skipped.append(f"{shown}: '{key}' is not a Cursor rule setting ContextDesk knows; left out")
    imported.add_document(
        "rule",
        "-".join(relative.parts),
        description=description,
        include=include,
        text=parts.body,
        globs=attachment.globs,
    )
