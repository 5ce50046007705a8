"""Writing imported skills into the import's staging folder: ``skills/<name>/`` byte for byte,
each file with its permission bits (an executable script stays executable).

The staging folder is new and private to the import, so files are written directly; the whole
staging folder is then moved into place all or nothing (``_staging``).
"""

from __future__ import annotations

from pathlib import Path

from agent_core.agent.importers._common import AgentImportError
from agent_core.agent.importers._skill_read import ImportedSkill
from agent_core.agent.skill_files.loader import SKILLS_FOLDER

__all__ = ["write_skills"]


def write_skills(skills: list[ImportedSkill], staging: Path) -> None:
    """Write each skill's files under ``staging/skills/<name>/``.

    Raises:
        AgentImportError: a file could not be written (the caller discards the staging folder, so
            the agent is unchanged).
    """
    for skill in skills:
        folder = staging / SKILLS_FOLDER / skill.name
        for relative, file in skill.files.items():
            path = folder / relative
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                with path.open("xb") as out:
                    out.write(file.data)
                path.chmod(file.mode)  # as in the source, whatever this process's umask
            except OSError as error:
                raise AgentImportError(
                    f"could not write skills/{skill.name}/{relative} ({error.strerror or error}); the agent "
                    f"is unchanged: check that there is room on the disk of {staging.parent}, then import again"
                ) from error
