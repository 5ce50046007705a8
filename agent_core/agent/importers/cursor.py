"""Cursor project rules: ``.cursor/rules/*.mdc`` (and the older single ``.cursorrules`` file)."""

from __future__ import annotations

from pathlib import Path

from agent_core.agent._frontmatter import FrontmatterError, split_frontmatter
from agent_core.agent.importers._common import (
    AgentImportError,
    ImportedAgent,
    Importer,
    ImportReport,
    read_import_text,
)
from agent_core.agent.importers._cursor_globs import cursor_attachment
from agent_core.agent.schema import IncludeMode
from agent_core.plugins import Register

__all__ = ["detects_cursor_rules", "find_cursor_rules", "import_cursor_rules", "register_importers"]


def find_cursor_rules(source: Path) -> Path | None:
    """The ``.cursor/rules`` folder meant by ``source`` (a project, ``.cursor`` or the folder itself)."""
    for candidate in (source / ".cursor" / "rules", source / "rules", source):
        if candidate.is_dir() and any(candidate.rglob("*.mdc")):
            return candidate
    return None


def detects_cursor_rules(source: Path) -> bool:
    """A project (or ``.cursor`` folder) with ``.mdc`` rules or a ``.cursorrules`` file, or one ``.mdc`` file."""
    if source.is_dir():
        return find_cursor_rules(source) is not None or (source / ".cursorrules").is_file()
    return source.suffix == ".mdc"


def _import_detected(source: Path, *, copy_secrets: bool) -> ImportedAgent:
    # Rules hold no secrets; a single .mdc file stands for the rules folder it is in.
    return import_cursor_rules(source if source.is_dir() else source.parent)


def register_importers(register: Register[Importer]) -> None:
    """The Cursor importer: project rules (.mdc) and the older .cursorrules file."""
    register(
        "cursor",
        Importer(
            "Cursor rules (.cursor/rules/*.mdc or .cursorrules)", detects_cursor_rules, _import_detected
        ),
    )


def import_cursor_rules(source: Path) -> ImportedAgent:
    """Rules from Cursor: alwaysApply or catch-all globs -> always; a description -> agent;
    neither -> manual; globs are kept (see ``_cursor_globs``).

    Raises:
        AgentImportError: no ``.mdc`` rule and no ``.cursorrules`` file was found.
    """
    imported = ImportedAgent(report=ImportReport("Cursor project rules (.cursor/rules/*.mdc)"))
    folder = find_cursor_rules(source)
    legacy = source / ".cursorrules"
    if folder is None and not legacy.is_file():
        raise AgentImportError(f"no Cursor rules in {source}: expected .cursor/rules/*.mdc or .cursorrules")
    if folder is not None:
        for file in sorted(folder.rglob("*.mdc")):
            _import_rule(file, folder, imported)
    if legacy.is_file():
        imported.add_document(
            "rule",
            "cursorrules",
            description="Project rules from .cursorrules",
            priority_level=100,
            include=IncludeMode.ALWAYS,
            text=read_import_text(legacy),
        )
        imported.report.created.append("rule 'cursorrules' (always) from .cursorrules")
    return imported


def _import_rule(file: Path, folder: Path, imported: ImportedAgent) -> None:
    report = imported.report
    relative = file.relative_to(folder).with_suffix("")
    raw_name = "-".join(relative.parts)
    try:
        parts = split_frontmatter(read_import_text(file))
    except (AgentImportError, FrontmatterError) as error:
        report.skipped.append(f"{relative}.mdc: {error}")
        return
    # Cursor's header is not strict YAML (`globs: *.ts` is an alias error in YAML): read key: value lines.
    header: dict[str, str] = {}
    for line in (parts.header or "").split("\n"):
        key, sep, value = line.partition(":")
        if sep and key.strip():
            header[key.strip()] = value.strip().strip("'\"")
    description = header.get("description", "")
    always = header.get("alwaysApply", "").lower() == "true"
    attachment = cursor_attachment(parts.header or "", description=description, always_apply=always)
    include = attachment.include
    report.skipped += [f"{relative}.mdc: {dropped}" for dropped in attachment.dropped]
    for key in sorted(set(header) - {"description", "globs", "alwaysApply"}):
        report.skipped.append(f"{relative}.mdc: '{key}'")
    imported.add_document(
        "rule", raw_name, description=description, include=include, text=parts.body, globs=attachment.globs
    )
    report.created.append(f"rule '{imported.documents[-1].name}' ({include.value})")
