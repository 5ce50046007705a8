"""Finding skills and instruction files in a folder to import, at any depth, within bounds.

A cloned collection keeps its skills wherever its authors chose (``skills/*/SKILL.md``,
``plugins/*/skills/*/SKILL.md``, ``document-skills/pdf/SKILL.md``), so the whole tree is walked:
without following a link out of it (reported), without entering version-control or dependency
folders, and stopping (with a note) past ``MAX_WALK_ENTRIES`` entries or ``MAX_WALK_DEPTH``
levels, so pointing the import at a home folder cannot run for ever. A folder holding a SKILL.md
is one skill: what is below it belongs to the skill and is not searched further.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from agent_core.agent.importers._source_root import is_import_target, link_out_problem
from agent_core.agent.skill_files.definition import SKILL_FILE

__all__ = [
    "INSTRUCTION_FILES",
    "MAX_WALK_DEPTH",
    "MAX_WALK_ENTRIES",
    "SKIPPED_FOLDERS",
    "SourceTree",
    "scan_source",
]

MAX_WALK_ENTRIES = 200_000
MAX_WALK_DEPTH = 12
# Never part of a skill or of a project's instructions: version control, dependencies, caches.
SKIPPED_FOLDERS = frozenset(
    {".git", ".hg", ".svn", ".bzr", "_darcs", "CVS", "node_modules", "__pycache__", ".venv", ".tox"}
)
# The instruction files each tool reads from a project folder (and, for AGENTS.md, its sub-folders).
INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")
_COPILOT_FILE = ("copilot-instructions.md",)
_COPILOT_SUFFIX = ".instructions.md"


@dataclass
class SourceTree:
    """What a walk of the source found, relative paths with '/'."""

    skill_folders: list[Path] = field(default_factory=list)
    instruction_files: list[Path] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # links to folders not followed, with the reason
    refused_files: list[str] = field(default_factory=list)  # instruction files linking out, with the reason
    # Files named like SKILL.md in another case (skill.md): on Linux no tool reads them as a skill.
    misnamed_skill_files: list[Path] = field(default_factory=list)
    stopped: str | None = None  # why the walk stopped early, when it did


def scan_source(root: Path, *, want_instructions: bool = True) -> SourceTree:
    """Skill folders (holding a SKILL.md) and instruction files in ``root``, sorted by path."""
    tree = SourceTree()
    if (root / SKILL_FILE).exists() or (root / SKILL_FILE).is_symlink():
        tree.skill_folders.append(root)  # the user named one skill
        return tree
    seen = 0
    stack: list[tuple[Path, int]] = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as error:
            tree.refused.append(f"{_shown(folder, root)}: cannot list the folder ({error.strerror})")
            continue
        seen += len(entries)
        if seen > MAX_WALK_ENTRIES:
            tree.stopped = (
                f"the folder has more than {MAX_WALK_ENTRIES} files and folders; the search stopped "
                f"there: import the folder that holds the skills ({_shown(folder, root)} was next)"
            )
            break
        for entry in entries:
            path = Path(entry.path)
            if entry.name in SKIPPED_FOLDERS or not _may_enter(entry, path, root, tree, want_instructions):
                continue
            if entry.is_dir(follow_symlinks=False):
                if is_import_target(path):
                    tree.refused.append(
                        f"{_shown(path, root)}: the agent folder this import goes into; not searched, "
                        "so its own skills are not imported into it again"
                    )
                elif (path / SKILL_FILE).exists() or (path / SKILL_FILE).is_symlink():
                    tree.skill_folders.append(path)
                elif depth + 1 < MAX_WALK_DEPTH:
                    stack.append((path, depth + 1))
            elif entry.name != SKILL_FILE and entry.name.lower() == SKILL_FILE.lower():
                tree.misnamed_skill_files.append(path)
            elif want_instructions and _is_instruction_file(path, root):
                tree.instruction_files.append(path)
    tree.skill_folders.sort()
    tree.instruction_files.sort()
    tree.misnamed_skill_files.sort()
    return tree


def _may_enter(
    entry: os.DirEntry[str], path: Path, root: Path, tree: SourceTree, want_instructions: bool
) -> bool:
    """Whether the walk looks at ``entry`` further. A link to a folder is never entered: one within
    ``root`` leads where the walk goes by itself. A link that leads out of ``root``, or cannot be
    followed (a loop), is left out, and reported when it is a folder or a file the import reads."""
    try:
        if not entry.is_symlink():
            return True
        problem = link_out_problem(path)
        if problem is None:
            return not path.is_dir()  # a linked file within the source is read like any other
        if path.is_file():
            if want_instructions and _is_instruction_file(path, root):
                tree.refused_files.append(f"{_shown(path, root)}: {problem}")
        else:
            tree.refused.append(f"{_shown(path, root)}: {problem}")
        return False
    except OSError:
        return False


def _is_instruction_file(path: Path, root: Path) -> bool:
    relative = path.relative_to(root)
    if path.name in INSTRUCTION_FILES:
        return True
    parts = relative.parts
    if len(parts) >= 2 and parts[-2] == ".github" and path.name in _COPILOT_FILE:
        return True
    return ".github" in parts[:-1] and "instructions" in parts[:-1] and path.name.endswith(_COPILOT_SUFFIX)


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix() or "."
    except ValueError:
        return str(path)
