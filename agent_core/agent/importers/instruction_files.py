"""The instruction files people keep in a project, as rules: ``AGENTS.md`` (Codex and others),
``CLAUDE.md``, ``GEMINI.md``, ``.github/copilot-instructions.md`` and
``.github/instructions/*.instructions.md``.

- A file at the top of the project (and ``.claude/CLAUDE.md``) is read by its tool for every
  request: a rule with include ``always``.
- An ``AGENTS.md`` (or ``CLAUDE.md``, ``GEMINI.md``) in a sub-folder applies to the files below it
  (monorepos): a ``manual`` rule with the glob ``sub/folder/**``, so it joins a chat when a file of
  that folder is in play, as its tool would read it there.
- A ``.instructions.md`` file's ``applyTo:`` globs become the rule's ``globs:`` as Cursor rules'
  globs do (``applyTo: "**"`` means every file: ``always``).

Two files with the same text (``AGENTS.md`` linked to ``CLAUDE.md``) are one rule.
"""

from __future__ import annotations

import re
from pathlib import Path

from agent_core.agent._frontmatter import FrontmatterError, split_frontmatter
from agent_core.agent._loose_header import read_loose_header
from agent_core.agent.file_globs import glob_problem
from agent_core.agent.importers._common import (
    AgentImportError,
    ImportedAgent,
    Importer,
    ImportReport,
    read_rule_text,
)
from agent_core.agent.importers._cursor_globs import cursor_attachment
from agent_core.agent.importers._source_tree import INSTRUCTION_FILES, scan_source
from agent_core.agent.schema import IncludeMode
from agent_core.plugins import Register

__all__ = [
    "MAX_INSTRUCTION_FILES",
    "detects_instruction_files",
    "import_instruction_files",
    "register_importers",
]

MAX_INSTRUCTION_FILES = 200  # a project with more is a tree of vendored projects: the first are read
_FORMAT = "instruction files (AGENTS.md, CLAUDE.md, GEMINI.md, Copilot instructions)"
_COPILOT_SUFFIX = ".instructions.md"
_KNOWN_KEYS = {"applyTo", "description", "name", "excludeAgent"}
_SLUG = re.compile(r"[^A-Za-z0-9_-]+")
_CLAUDE_IMPORT = re.compile(r"^@[~./\w-]+\S*\s*$", re.MULTILINE)


def _is_instruction_file(path: Path) -> bool:
    return (
        path.name in INSTRUCTION_FILES
        or path.name.endswith(_COPILOT_SUFFIX)
        or (path.name == "copilot-instructions.md" and path.parent.name == ".github")
    )


def detects_instruction_files(source: Path) -> bool:
    """One instruction file, or a folder with instruction files at any depth."""
    if source.is_file():
        return _is_instruction_file(source)
    return bool(scan_source(source).instruction_files)


def _import_detected(source: Path, *, copy_secrets: bool) -> ImportedAgent:
    return import_instruction_files(source)  # instructions hold no settings


def register_importers(register: Register[Importer]) -> None:
    """The instruction-files importer."""
    register(
        "instruction-files",
        Importer(
            "instruction files (AGENTS.md, CLAUDE.md, GEMINI.md, .github/copilot-instructions.md, "
            ".github/instructions/*.instructions.md)",
            detects_instruction_files,
            _import_detected,
            combines=True,
        ),
    )


def import_instruction_files(source: Path) -> ImportedAgent:
    """Every instruction file of ``source`` as a rule (see the module's docstring).

    Raises:
        AgentImportError: ``source`` holds no instruction file.
    """
    imported = ImportedAgent(report=ImportReport(_FORMAT))
    if source.is_file():
        root, files = source.parent, [source]
    else:
        tree = scan_source(source)
        # The file itself before a link to it (AGENTS.md linking to CLAUDE.md): the file is kept.
        root, files = source, sorted(tree.instruction_files, key=lambda path: (path.is_symlink(), path))
        imported.report.skipped += tree.refused_files
    if not files and not imported.report.skipped:
        raise AgentImportError(
            f"no instruction files in {source}: expected AGENTS.md, CLAUDE.md or GEMINI.md"
        )
    texts: dict[str, str] = {}  # text -> the file it was first read from
    for file in files[:MAX_INSTRUCTION_FILES]:
        _import_file(file, file.relative_to(root), imported, texts)
    for file in files[MAX_INSTRUCTION_FILES:]:
        imported.report.skipped.append(
            f"{file.relative_to(root).as_posix()}: more than {MAX_INSTRUCTION_FILES} instruction files; "
            "import its folder separately"
        )
    return imported


def _import_file(file: Path, relative: Path, imported: ImportedAgent, texts: dict[str, str]) -> None:
    report = imported.report
    shown = relative.as_posix()
    try:
        parts = split_frontmatter(read_rule_text(file))
    except (AgentImportError, FrontmatterError) as error:
        report.skipped.append(f"{shown}: {error}; fix the file and import again")
        return
    body = parts.body.strip()
    if not body:
        report.skipped.append(f"{shown}: it is empty; nothing to import")
        return
    if body in texts:
        report.skipped.append(f"{shown}: the same text as {texts[body]}; imported once")
        return
    texts[body] = shown
    if _CLAUDE_IMPORT.search(body):
        report.warnings.append(
            f"{shown}: its @file lines import other files in Claude Code; ContextDesk does not follow "
            "them: import those files too, or paste their text in"
        )
    if file.name.endswith(_COPILOT_SUFFIX):
        _add_scoped(relative, parts.header or "", parts.body, imported)
        return
    folder = relative.parent.as_posix()
    stem = file.name.removesuffix(".md").lower()  # agents, claude, gemini, copilot-instructions
    # Claude Code also reads the project's CLAUDE.md from .claude/; Copilot's lives in .github/.
    top_level = relative.parent in (Path(), Path(".github")) or relative == Path(".claude", "CLAUDE.md")
    words = [_SLUG.sub("-", part).strip("-") for part in relative.parent.parts if not top_level]
    name = "-".join(
        [*(word for word in words if word), stem if stem == "copilot-instructions" else f"{stem}-md"]
    )
    if top_level:
        imported.add_document(
            "rule",
            name,
            description=f"Project instructions from {shown}",
            priority_level=100,
            include=IncludeMode.ALWAYS,
            text=parts.body,
        )
        return
    glob = f"{folder}/**"
    if problem := glob_problem(glob):
        imported.report.warnings.append(
            f"{shown}: the folder's name cannot be a glob ({problem}); the rule joins only when you add it"
        )
    imported.add_document(
        "rule",
        name,
        description=f"Instructions for the files in {folder}/ (from {shown})",
        priority_level=100,
        include=IncludeMode.MANUAL,
        text=parts.body,
        globs=() if problem else (glob,),
    )


def _add_scoped(relative: Path, header_text: str, body: str, imported: ImportedAgent) -> None:
    """A ``.instructions.md`` file: ``applyTo`` as globs, ``description`` as is."""
    shown = relative.as_posix()
    header = read_loose_header(header_text)  # VS Code reads the header leniently too
    apply_to = header.get("applyTo", "")
    patterns = ", ".join(apply_to) if isinstance(apply_to, list) else apply_to
    description = str(header.get("description", "")).strip().strip("'\"")
    attachment = cursor_attachment(f"globs: {patterns}", description=description, always_apply=False)
    imported.report.skipped += [f"{shown}: applyTo {dropped}" for dropped in attachment.dropped]
    for key in sorted(set(header) - _KNOWN_KEYS):
        imported.report.skipped.append(
            f"{shown}: '{key}' is not an instructions setting ContextDesk knows; left out"
        )
    include = attachment.include
    if not patterns and not description:
        include = IncludeMode.MANUAL  # VS Code applies it only when attached by hand
    imported.add_document(
        "rule",
        relative.name.removesuffix(_COPILOT_SUFFIX),
        description=description or f"Instructions from {shown}",
        priority_level=100,
        include=include,
        text=body,
        globs=attachment.globs,
    )
