"""Reading one skill folder of a source: its SKILL.md checked as the loader will read it, and every
file of the folder taken byte for byte with its permission bits, within size caps.

What is left out (a link out of the source, a named pipe, a file over a cap, a version-control
folder) is said in the skill's notes; a SKILL.md the loader would refuse leaves the whole skill
out, with the loader's reasons, so that ``agent check`` passes after an import.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from agent_core.agent._text_file import FileRefused, read_bytes, read_text
from agent_core.agent.frontmatter_folder import parse_headered_text, validate_header
from agent_core.agent.importers._source_root import link_out_problem
from agent_core.agent.importers._source_tree import SKIPPED_FOLDERS
from agent_core.agent.items import Problem
from agent_core.agent.skill_files.definition import SKILL_FILE, SkillFrontmatter
from agent_core.agent.skill_files.loader import SKILL_FILES

__all__ = [
    "MAX_FILES_PER_SKILL",
    "MAX_SKILL_BYTES",
    "MAX_SKILL_FILE_BYTES",
    "ImportedSkill",
    "SkillFile",
    "read_skill",
]

MAX_SKILL_FILE_BYTES = 10 * 1024 * 1024  # one file of a skill (a font, a PDF form, a model card)
MAX_SKILL_BYTES = 25 * 1024 * 1024  # all of one skill's files together
MAX_FILES_PER_SKILL = 1_000
_MAX_FOLDER_DEPTH = 16


@dataclass(frozen=True)
class SkillFile:
    data: bytes
    mode: int  # the permission bits (0o755 for an executable script)


@dataclass
class ImportedSkill:
    """One skill read from a source, ready to be written as ``skills/<name>/``."""

    name: str  # its folder's name in the agent (valid for the standard)
    source: str  # where it was found, relative to the source ('.' for the source itself)
    header_name: str  # the SKILL.md's own name, as written ('' when it has none)
    description: str
    files: dict[str, SkillFile]  # relative with '/', SKILL.md included
    enabled: bool = True
    notes: list[str] = field(default_factory=list)  # what was changed or left out, and why

    @property
    def skill_md(self) -> bytes:
        return self.files[SKILL_FILE].data

    @property
    def size(self) -> int:
        return sum(len(file.data) for file in self.files.values())


@dataclass(frozen=True)
class SkillHeader:
    name: str
    description: str
    warnings: tuple[str, ...]


def read_skill(folder: Path, shown: str) -> tuple[SkillHeader, dict[str, SkillFile], list[str]] | str:
    """The header, files and notes of the skill in ``folder`` (``shown``: its path for messages),
    or why it cannot be imported."""
    entry = folder / SKILL_FILE
    header = _read_header(entry)
    if isinstance(header, str):
        return header
    notes: list[str] = []
    files = _read_files(folder, notes)
    files[SKILL_FILE] = SkillFile(header[1], _mode(entry))
    return header[0], dict(sorted(files.items())), notes


def _read_header(entry: Path) -> tuple[SkillHeader, bytes] | str:
    if problem := link_out_problem(entry):
        return f"{SKILL_FILE}: {problem}"
    if entry.is_symlink() and not entry.exists():
        return f"{SKILL_FILE} is a link to {entry.readlink()}, which does not exist"
    problems: list[Problem] = []
    text = read_text(entry, problems, too_large_fix=SKILL_FILES.too_large_fix)
    file = None if text is None else parse_headered_text(entry, text, SKILL_FILES, problems)
    header = None if file is None else validate_header(file, SkillFrontmatter, SKILL_FILES, problems)
    errors = [f"{p.message} ({p.fix})" for p in problems if p.severity == "error"]
    if header is None or errors or text is None:
        return f"{SKILL_FILE}: {'; '.join(errors) or 'cannot be read'}"
    warnings = tuple(p.message for p in problems if p.severity != "error")
    data = text.encode("utf-8")  # read_text decoded exactly these bytes
    return SkillHeader((header.name or "").strip(), header.description.strip(), warnings), data


def _read_files(folder: Path, notes: list[str]) -> dict[str, SkillFile]:
    files: dict[str, SkillFile] = {}
    total = 0
    visited = {folder.resolve()}
    stack: list[tuple[Path, int]] = [(folder, 0)]
    while stack:
        current, depth = stack.pop()
        try:
            with os.scandir(current) as listing:
                entries = sorted(listing, key=lambda item: item.name)
        except OSError as error:
            notes.append(
                f"{_relative(current, folder)}/: cannot list the folder ({error.strerror}); left out"
            )
            continue
        for item in entries:
            path = Path(item.path)
            relative = _relative(path, folder)
            if relative == SKILL_FILE:
                continue
            if item.name in SKIPPED_FOLDERS:
                if item.is_dir(follow_symlinks=False):
                    notes.append(
                        f"{relative}/: left out: a version-control or dependency folder is not part of a "
                        "skill (reinstall dependencies where the skill runs)"
                    )
                continue
            if item.is_symlink() and (problem := link_out_problem(path)):
                notes.append(f"{relative}: {problem}")
                continue
            if path.is_dir():
                real = path.resolve()
                if real in visited or depth + 1 >= _MAX_FOLDER_DEPTH:
                    notes.append(f"{relative}/: a link back into the skill, or nested too deep; left out")
                else:
                    visited.add(real)
                    stack.append((path, depth + 1))
                continue
            left_out = _left_out(path, len(files), total)
            if left_out is None:
                try:
                    data = read_bytes(path, MAX_SKILL_FILE_BYTES)
                except FileRefused as refused:
                    left_out = f"{refused.message}; {refused.fix}"
                else:
                    files[relative] = SkillFile(data, _mode(path))
                    total += len(data)
                    continue
            notes.append(f"{relative}: left out: {left_out}")
    return files


def _left_out(path: Path, count: int, total: int) -> str | None:
    """Why the file ``path`` is not copied (a cap is reached, it is not an ordinary file), or None."""
    try:
        status = path.stat()
    except OSError as error:
        return f"cannot read it ({error.strerror})"
    if not stat.S_ISREG(status.st_mode):
        return "it is not an ordinary file (a named pipe, socket or device)"
    if status.st_size > MAX_SKILL_FILE_BYTES:
        return f"it is larger than {MAX_SKILL_FILE_BYTES // (1024 * 1024)} MB; copy it into skills/ by hand if the skill needs it"
    if count >= MAX_FILES_PER_SKILL:
        return f"the skill has more than {MAX_FILES_PER_SKILL} files; copy the rest by hand if the skill needs them"
    if total + status.st_size > MAX_SKILL_BYTES:
        return (
            f"the skill's files pass {MAX_SKILL_BYTES // (1024 * 1024)} MB together; copy the rest by hand "
            "if the skill needs them"
        )
    return None


def _mode(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode) & 0o777  # no set-user-ID or sticky bits
    except OSError:
        return 0o644


def _relative(path: Path, folder: Path) -> str:
    return path.relative_to(folder).as_posix()
