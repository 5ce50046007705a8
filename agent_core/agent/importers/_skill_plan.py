"""Deciding how imported skills merge into an agent, before anything is written.

- Two skills of the import with the same name, or byte-identical SKILL.md files (one skill in two
  collections), are a duplicate: the preferred one is kept, the other is reported (saying whether
  the two differ), unless the user keeps duplicates (``--keep-duplicates``): then it is added as
  ``name-2``. Preferred: the shallower path, then one not in a ``preview/`` or ``deprecated/``
  folder (``_preference``), then the first by path.
- A skill the agent already has, identical file for file, is left alone; the same SKILL.md under
  another name is a duplicate as above.
- A different skill of the same name gets a numbered folder (``name-2``), as a rule does, unless
  ``replace``: then it replaces the agent's, and files of the old version it lacks are removed.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path, PurePosixPath

from agent_core.agent._text_file import FileRefused, read_bytes
from agent_core.agent.importers._common import ImportReport
from agent_core.agent.importers._skill_read import (
    MAX_FILES_PER_SKILL,
    MAX_SKILL_FILE_BYTES,
    ImportedSkill,
)
from agent_core.agent.importers._source_tree import SKIPPED_FOLDERS
from agent_core.agent.schema import AgentConfig, SkillSettings
from agent_core.agent.skill_files.definition import MAX_NAME_CHARS, SKILL_FILE
from agent_core.agent.skill_files.loader import SKILLS_FOLDER

__all__ = ["SkillPlan", "plan_skills"]

_KEEP_BOTH = "import with --keep-duplicates to keep both"
# Folder names collections use for versions not meant as the one to use (UiPath/skills keeps
# preview/uipath-maestro-flow beside the stable skills/uipath-maestro-flow). Matched whole, in any
# case; a name list is enough: a wrong guess only changes which of two copies is kept, and the
# report names both.
_NOT_STABLE_FOLDERS = frozenset(
    {"preview", "previews", "experimental", "draft", "drafts", "deprecated", "archive", "archived", "old"}
)


class SkillPlan:
    """The skills to write, under their final names, and the agent's files they remove."""

    def __init__(self) -> None:
        self.skills: list[ImportedSkill] = []
        self.removed_files: list[Path] = []  # relative to the agent folder


def plan_skills(
    skills: list[ImportedSkill],
    root: Path,
    config: AgentConfig,
    report: ImportReport,
    *,
    replace: bool,
    keep_duplicates: bool,
) -> SkillPlan:
    """Which of ``skills`` go into the agent at ``root`` and under which names; ``config.skills``
    gets the settings of skills imported disabled. Fills ``report``; writes nothing."""
    plan = SkillPlan()
    folder = root / SKILLS_FOLDER
    on_disk = _skill_folders(folder)
    agent_hashes = {_digest_of(folder / name / SKILL_FILE): name for name in sorted(on_disk.values())}
    agent_hashes.pop("", None)  # a SKILL.md that cannot be read matches nothing
    by_name: dict[str, ImportedSkill] = {}
    by_hash: dict[str, ImportedSkill] = {}
    for skill in sorted(skills, key=_preference):  # stable: otherwise in the importer's path order
        label = f"skill '{skill.name}' (from {skill.source})"
        digest = hashlib.sha256(skill.skill_md).hexdigest()
        twin, why = _twin_in_import(skill, digest, by_name, by_hash)
        if twin is not None and not keep_duplicates:
            report.skipped.append(_duplicate_line(label, skill, twin, why))
            continue
        existing = on_disk.get(skill.name.lower())
        if existing is not None and twin is None:
            old_files = _folder_files(folder / existing)
            # From here on the name is this skill's: a later one of the same name is its duplicate.
            by_name.setdefault(skill.name.lower(), skill)
            by_hash.setdefault(digest, skill)
            if old_files == {path: file.data for path, file in skill.files.items()}:
                report.skipped.append(f"{label}: the agent has the same one; nothing to do")
                continue
            if replace:
                plan.removed_files += [
                    Path(SKILLS_FOLDER, existing, path)
                    for path in sorted(set(old_files or {}) - set(skill.files))
                ]
                skill.name = existing
                report.changed.append(f"skill '{existing}' replaced by the one from {skill.source}")
                _add(skill, plan, config, report, created=False)
                continue
        if twin is None and existing is None and digest in agent_hashes and not keep_duplicates:
            report.skipped.append(
                f"{label}: the agent has the same {SKILL_FILE} as its skill '{agent_hashes[digest]}'; "
                f"nothing to do ({_KEEP_BOTH})"
            )
            continue
        if twin is not None or existing is not None:
            taken = set(on_disk) | set(by_name)
            original = skill.name
            skill.name = _numbered(skill.name, taken)
            reason = (
                f"a duplicate of '{twin.name}' from {twin.source} ({why}), kept as asked"
                if twin is not None
                else f"the agent has a different skill '{existing}' (import again with --replace to overwrite it)"
            )
            report.warnings.append(
                f"skill '{original}' (from {skill.source}) added as '{skill.name}': {reason}"
            )
        by_name.setdefault(skill.name.lower(), skill)
        by_hash.setdefault(digest, skill)
        _add(skill, plan, config, report, created=True)
    return plan


def _preference(skill: ImportedSkill) -> tuple[int, bool]:
    """Sorts the copy to keep first: the shallower path, then one in no preview-like folder."""
    folders = PurePosixPath(skill.source).parts
    return len(folders), any(folder.lower() in _NOT_STABLE_FOLDERS for folder in folders)


def _duplicate_line(label: str, skill: ImportedSkill, twin: ImportedSkill, why: str) -> str:
    if skill.files == twin.files:
        return f"{label}: a duplicate of '{twin.name}' from {twin.source} ({why}); kept once ({_KEEP_BOTH})"
    kept_for = (
        "its path is shallower"
        if _preference(twin)[0] < _preference(skill)[0]
        else "this one is in a preview, draft or deprecated folder"
        if _preference(twin) < _preference(skill)
        else "it comes first by path"
    )
    differ = (
        f"their {SKILL_FILE} files differ" if skill.skill_md != twin.skill_md else "their other files differ"
    )
    other = "of the same name" if why.startswith("the same name") else f"with the same {SKILL_FILE}"
    return (
        f"{label}: not imported: another skill {other}, '{twin.name}' from {twin.source}, was kept "
        f"({kept_for}), and the two differ ({differ}); check which one you want, or {_KEEP_BOTH} "
        f"(this one as '{skill.name}-2')"
    )


def _twin_in_import(
    skill: ImportedSkill, digest: str, by_name: dict[str, ImportedSkill], by_hash: dict[str, ImportedSkill]
) -> tuple[ImportedSkill | None, str]:
    if (twin := by_name.get(skill.name.lower())) is not None:
        same = twin.skill_md == skill.skill_md
        return twin, f"the same name{' and the same ' + SKILL_FILE if same else ''}"
    if (twin := by_hash.get(digest)) is not None:
        return twin, f"a byte-identical {SKILL_FILE}"
    return None, ""


def _add(
    skill: ImportedSkill, plan: SkillPlan, config: AgentConfig, report: ImportReport, *, created: bool
) -> None:
    plan.skills.append(skill)
    state = "" if skill.enabled else ", disabled"
    if created:
        count = len(skill.files)
        report.created.append(f"skill '{skill.name}' ({count} file{'' if count == 1 else 's'}{state})")
    report.warnings += [f"skill '{skill.name}' (from {skill.source}): {note}" for note in skill.notes]
    if not skill.enabled:
        config.skills = {**config.skills, skill.name: SkillSettings(enabled=False)}


def _numbered(name: str, taken: set[str]) -> str:
    """``name-2``, ``name-3``... the first not in ``taken`` (lower-case), within the standard's length."""
    counter = 2
    while True:
        suffix = f"-{counter}"
        candidate = f"{name[: MAX_NAME_CHARS - len(suffix)].rstrip('-')}{suffix}"
        if candidate.lower() not in taken:
            return candidate
        counter += 1


def _skill_folders(folder: Path) -> dict[str, str]:
    """The agent's skill folders, lower-case name -> name."""
    if not folder.is_dir():
        return {}
    return {
        entry.name.lower(): entry.name
        for entry in os.scandir(folder)
        if entry.is_dir(follow_symlinks=False) and not entry.name.startswith(".")
    }


def _digest_of(path: Path) -> str:
    try:
        return hashlib.sha256(read_bytes(path)).hexdigest()
    except FileRefused:
        return ""


def _folder_files(folder: Path) -> dict[str, bytes] | None:
    """Every file of the agent's skill folder, or None when it cannot all be read (it then counts
    as different)."""
    files: dict[str, bytes] = {}
    for current, folders, names in os.walk(folder):
        folders[:] = [name for name in folders if name not in SKIPPED_FOLDERS]
        for name in names:
            path = Path(current, name)
            if len(files) >= MAX_FILES_PER_SKILL or path.is_symlink():
                return None
            try:
                files[path.relative_to(folder).as_posix()] = read_bytes(path, MAX_SKILL_FILE_BYTES)
            except FileRefused:
                return None
    return files
