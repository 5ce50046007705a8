"""Loading ``skills/<name>/SKILL.md``: every readable skill loads, each fault is a located Problem.

Skills come from public collections written for other tools, so the reading is lenient where
those tools are: a header that is not valid YAML is read as Claude Code reads it, a name or
description outside the standard's limits is a warning, and keys of other tools are ignored.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_core.agent._text_file import outside_problem
from agent_core.agent.frontmatter_folder import FolderKind, HeaderedFile, load_folder, validate_header
from agent_core.agent.items import Problem
from agent_core.agent.schema import SkillSettings
from agent_core.agent.skill_files.definition import (
    KEPT_DESCRIPTION_CHARS,
    MAX_DESCRIPTION_CHARS,
    SKILL_FILE,
    Skill,
    SkillFrontmatter,
    outside_skill_folder,
    spec_name_problem,
)

__all__ = ["MAX_SKILL_FILES", "SKILLS_FOLDER", "SKILL_FILES", "list_skill_files", "load_skills"]

SKILLS_FOLDER = "skills"
MAX_SKILL_FILES = 500  # files listed per skill; a skill with more is listed up to here, with a warning
_MAX_DEPTH = 8

SKILL_FILES = FolderKind(
    folder=SKILLS_FOLDER,
    noun="skill",
    too_large_fix="keep SKILL.md short and move details into files of the skill (references/...)",
    entry=SKILL_FILE,
    header_needed="a skill needs a header with its name and description (when to use it)",
    loose_header=True,
)


def load_skills(root: Path, settings: dict[str, SkillSettings], problems: list[Problem]) -> dict[str, Skill]:
    """Every readable skill of the agent in ``root``, by folder name, with agent.yaml's settings."""
    real_root = root.resolve()

    def parse(file: HeaderedFile, found: list[Problem]) -> Skill | None:
        return _skill(file, settings.get(file.name, SkillSettings()), real_root, found)

    skills = load_folder(root, SKILL_FILES, parse, problems)
    for name in sorted(set(settings) - set(skills)):
        problems.append(
            Problem(
                root / "agent.yaml",
                f"skills: '{name}' has settings but no folder skills/{name}/ with a {SKILL_FILE}",
                f"remove its entry under skills:, or add the folder skills/{name}/",
                severity="warning",
            )
        )
    return skills


def _skill(
    file: HeaderedFile, setting: SkillSettings, real_root: Path, problems: list[Problem]
) -> Skill | None:
    header = validate_header(file, SkillFrontmatter, SKILL_FILES, problems)
    if header is None:
        return None
    display = (header.name or "").strip()
    if display and display != file.name and (problem := spec_name_problem(display)) is None:
        problems.append(
            Problem(
                file.path,
                f"the header names the skill '{display}' but its folder is '{file.name}'; ContextDesk "
                f"calls it '{file.name}'",
                f"rename the folder to {display}, or make the header's name {file.name}",
                file.line_of("name"),
                "warning",
            )
        )
    elif problem := spec_name_problem(file.name):
        problems.append(
            Problem(
                file.path,
                f"{problem}, so other tools may refuse it",
                "rename the folder (and the header's name) to lower-case words joined by hyphens",
                file.line_of("name"),
                "warning",
            )
        )
    description = header.description.strip()
    if not description:
        problems.append(
            Problem(
                file.path,
                "the skill has no description, so nothing tells when it is needed: it is only used "
                "when you add it to a chat",
                "add a description: what the skill does and when to use it",
                file.line_of("description") or file.header_line,
                "warning",
            )
        )
    elif len(description) > MAX_DESCRIPTION_CHARS:
        kept = len(description) <= KEPT_DESCRIPTION_CHARS
        problems.append(
            Problem(
                file.path,
                f"the description has {len(description):,} characters, more than the standard's "
                f"{MAX_DESCRIPTION_CHARS}; "
                + ("it is read whole" if kept else f"only its first {KEPT_DESCRIPTION_CHARS:,} are used"),
                "shorten it: say what the skill does and when to use it, move the rest into the body",
                file.line_of("description"),
                "warning",
            )
        )
        description = description[:KEPT_DESCRIPTION_CHARS].rstrip()
    folder = file.path.parent
    return Skill(
        name=file.name,
        description=description,
        body=file.body,
        path=file.path,
        body_offset=file.body_offset,
        display_name=display if display and display != file.name else "",
        license=(header.license or "").strip(),
        compatibility=(header.compatibility or "").strip(),
        allowed_tools=tuple(header.allowed_tools),
        metadata=header.metadata,
        files=list_skill_files(folder, real_root, problems),
        include=setting.include,
        enabled=setting.enabled,
        priority_level=setting.priority_level,
    )


def list_skill_files(folder: Path, real_root: Path, problems: list[Problem]) -> tuple[str, ...]:
    """The skill's files besides SKILL.md, relative with '/', sorted: those ``skills.read`` serves.
    Links out of the skill's folder and files past ``MAX_SKILL_FILES`` are left out with a Problem."""
    real_folder = folder.resolve()
    found: list[str] = []
    stack: list[tuple[Path, int]] = [(folder, 0)]
    while stack:
        current, depth = stack.pop()
        try:
            with os.scandir(current) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as error:
            problems.append(
                Problem(
                    current,
                    f"cannot list the folder: {error.strerror}",
                    "check its permissions",
                    severity="warning",
                )
            )
            continue
        for entry in entries:
            path = Path(entry.path)
            if entry.name.startswith(".") or (depth == 0 and entry.name == SKILL_FILE):
                continue
            if entry.is_symlink() and (escape := outside_problem(path, real_root, real_root=real_root)):
                problems.append(escape)
                continue
            if entry.is_symlink() and (why := outside_skill_folder(path, real_folder)):
                problems.append(
                    Problem(
                        path,
                        f"{why}; it is left out of the skill's file list",
                        "copy the file into the skill's folder instead of linking to it",
                        severity="warning",
                    )
                )
                continue
            if entry.is_dir():
                if depth + 1 < _MAX_DEPTH:
                    stack.append((path, depth + 1))
                continue
            if not entry.is_file():
                continue
            if len(found) >= MAX_SKILL_FILES:
                problems.append(
                    Problem(
                        folder,
                        f"the skill has more than {MAX_SKILL_FILES} files; only the first are listed",
                        "move data the skill does not need out of its folder",
                        severity="warning",
                    )
                )
                return tuple(sorted(found))
            found.append(path.relative_to(folder).as_posix())
    return tuple(sorted(found))
