"""Agent Skills: one skill folder (holding a SKILL.md), a folder of skills (``.claude/skills``,
``~/.claude/skills``, ``.agents/skills``), a project holding them, or a cloned collection with
skills at any depth.

Each skill is copied byte for byte to ``skills/<name>/`` (``_skill_read``); a name the standard
does not allow becomes a valid one and the SKILL.md keeps its own (``_skill_names``); an unfilled
template is imported disabled. Duplicates are decided when the import is merged (``_skill_plan``),
where the user's choice to keep them is known.
"""

from __future__ import annotations

from pathlib import Path

from agent_core.agent.importers._common import AgentImportError, ImportedAgent, Importer, ImportReport
from agent_core.agent.importers._skill_names import placeholder_problem, skill_folder_name
from agent_core.agent.importers._skill_read import ImportedSkill, read_skill
from agent_core.agent.importers._source_tree import scan_source
from agent_core.agent.skill_files.definition import MAX_DESCRIPTION_CHARS, SKILL_FILE
from agent_core.plugins import Register

__all__ = ["MAX_IMPORT_BYTES", "detects_skills", "import_skills", "register_importers"]

MAX_IMPORT_BYTES = 256 * 1024 * 1024  # every skill of one import together (held in memory until written)
_FORMAT = "Agent Skills (folders with a SKILL.md)"


def detects_skills(source: Path) -> bool:
    """A SKILL.md, a skill folder, or a folder with skill folders at any depth; also a folder with
    a misnamed ``skill.md``, so the import can say how to name it."""
    if source.is_file():
        return source.name == SKILL_FILE
    tree = scan_source(source, want_instructions=False)
    return bool(tree.skill_folders or tree.misnamed_skill_files)


def _import_detected(source: Path, *, copy_secrets: bool) -> ImportedAgent:
    return import_skills(source)  # a skill's files are copied as they are; none is a settings file


def register_importers(register: Register[Importer]) -> None:
    """The Agent Skills importer."""
    register(
        "skills",
        Importer(
            "Agent Skills (a folder with a SKILL.md, or a folder of them at any depth)",
            detects_skills,
            _import_detected,
            combines=True,
        ),
    )


def import_skills(source: Path) -> ImportedAgent:
    """Every skill in ``source`` (a SKILL.md names its folder), with what was changed and why.

    Raises:
        AgentImportError: ``source`` holds no skill.
    """
    root = source.parent if source.is_file() else source
    tree = scan_source(root, want_instructions=False)
    report = ImportReport(_FORMAT)
    imported = ImportedAgent(report=report)
    report.skipped += tree.refused
    report.skipped += [
        f"{path.relative_to(root).as_posix()}: a skill's file must be named {SKILL_FILE}, in capitals (the "
        f"loader and other tools look for that name only): rename it to {SKILL_FILE} and import again"
        for path in tree.misnamed_skill_files
    ]
    if tree.stopped:
        report.warnings.append(tree.stopped)
    if not tree.skill_folders and not tree.misnamed_skill_files:
        raise AgentImportError(f"no skills in {source}: expected a folder with a {SKILL_FILE}")
    total = 0
    for folder in tree.skill_folders:
        shown = folder.relative_to(root).as_posix() or "."
        skill = _read_one(folder, shown, report)
        if skill is None:
            continue
        if total + skill.size > MAX_IMPORT_BYTES:
            report.skipped.append(
                f"skill at {shown}: the import has passed {MAX_IMPORT_BYTES // (1024 * 1024)} MB of skill "
                "files, so it is left out; import the rest of the folders separately"
            )
            continue
        total += skill.size
        imported.skills.append(skill)
    return imported


def _read_one(folder: Path, shown: str, report: ImportReport) -> ImportedSkill | None:
    read = read_skill(folder, shown)
    if isinstance(read, str):
        report.skipped.append(f"skill at {shown}: {read}; fix it and import again")
        return None
    header, files, notes = read
    name, reason = skill_folder_name(header.name, folder.name)
    changes: list[str] = []
    if reason is not None:
        given = header.name or folder.name
        changes.append(
            f"named '{name}': {reason}; its {SKILL_FILE} is unchanged and shows '{given}' as the display name"
        )
    elif not header.name:
        changes.append(f"its {SKILL_FILE} has no name; named after its folder")
    elif header.name != folder.name and shown != ".":
        changes.append(
            f"its folder in the source is '{folder.name}'; named '{name}' as its {SKILL_FILE} says"
        )
    changes += list(header.warnings)
    if len(header.description) > MAX_DESCRIPTION_CHARS:
        changes.append(
            f"its description has {len(header.description)} characters, more than the standard's "
            f"{MAX_DESCRIPTION_CHARS}: imported whole (other tools may cut it short)"
        )
    skill = ImportedSkill(
        name=name,
        source=shown,
        header_name=header.name,
        description=header.description,
        files=files,
        notes=changes + notes,
    )
    if template := placeholder_problem(header.name, header.description):
        skill.enabled = False
        skill.notes.append(
            f"looks like a template nobody filled in ({template}): imported disabled; write its "
            f"description, then enable it (skills.{name}.enabled: true in agent.yaml)"
        )
    return skill
