"""Writing an import all or nothing: into a temporary folder beside the agent, then moved into place.

A new agent is one rename of the finished folder. Into an existing agent, each staged file replaces
its counterpart after the counterpart is moved aside; if any move fails, every file already moved
is put back, so the agent is as it was. Either way an interrupted import never leaves a folder
with rule files and no agent.yaml.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import tempfile
from pathlib import Path

from agent_core.agent.agent import AGENT_FILE
from agent_core.agent.importers._common import AgentImportError
from agent_core.agent.importers._merge import ImportPlan
from agent_core.agent.importers._skill_write import write_skills
from agent_core.agent.subagent_files.loader import SUBAGENTS_FOLDER
from agent_core.agent.workflow_files.loader import WORKFLOWS_FOLDER
from agent_core.agent.writer import document_path, save_agent_config, save_document
from agent_core.atomic import atomic_write_text

__all__ = ["write_plan"]


def write_plan(plan: ImportPlan, target: Path) -> None:
    """Write ``plan`` into the agent folder ``target``: completely, or not at all.

    Raises:
        AgentImportError: the import could not be moved into place; ``target`` is unchanged.
        AgentFileError, AtomicWriteError: a file could not be written to the temporary folder;
            ``target`` is unchanged.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.import-", dir=target.parent))
    try:
        seeded = _seed(plan, target, staging)
        _write_into(plan, staging)
        _drop_unchanged(seeded, staging)
        if not target.exists():
            staging.rename(target)
            return
        _move_files_into(staging, target, plan.skills.removed_files)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _seed(plan: ImportPlan, target: Path, staging: Path) -> dict[Path, bytes]:
    """Copy the files the import edits (agent.yaml, replaced rules), so edits keep the user's bytes."""
    paths = [target / AGENT_FILE] + [document_path(target, d.kind, d.name) for d in plan.documents]
    seeded: dict[Path, bytes] = {}
    for path in paths:
        if path.is_file():
            relative = path.relative_to(target)
            data = path.read_bytes()
            (staging / relative).parent.mkdir(parents=True, exist_ok=True)
            (staging / relative).write_bytes(data)
            seeded[relative] = data
    return seeded


def _write_into(plan: ImportPlan, staging: Path) -> None:
    agent = dataclasses.replace(plan.agent, root=staging)
    for document in plan.documents:
        save_document(staging, document)
    for name, text in plan.subagent_files.items():
        atomic_write_text(staging / SUBAGENTS_FOLDER / f"{name}.md", text)
    for name, text in plan.workflow_files.items():
        atomic_write_text(staging / WORKFLOWS_FOLDER / f"{name}.yaml", text)
    write_skills(plan.skills.skills, staging)
    save_agent_config(agent)


def _drop_unchanged(seeded: dict[Path, bytes], staging: Path) -> None:
    # A copied file the import did not change is not moved back, so its time stamp stays.
    for relative, data in seeded.items():
        path = staging / relative
        if path.is_file() and path.read_bytes() == data:
            path.unlink()


def _move_files_into(staging: Path, target: Path, removed: list[Path]) -> None:
    backup = Path(tempfile.mkdtemp(prefix=f".{target.name}.replaced-", dir=target.parent))
    moved: list[tuple[Path, Path | None]] = []  # (path in target, its previous version or None)
    made_folders: list[Path] = []
    try:
        for relative in removed:  # files of a replaced skill that its new version lacks: set aside
            aside = backup / relative
            aside.parent.mkdir(parents=True, exist_ok=True)
            (target / relative).replace(aside)
            moved.append((target / relative, aside))
        for staged in sorted(p for p in staging.rglob("*") if p.is_file()):
            relative = staged.relative_to(staging)
            destination = target / relative
            for folder in reversed(relative.parents[:-1]):
                if not (target / folder).is_dir():
                    (target / folder).mkdir()
                    made_folders.append(target / folder)
            previous: Path | None = None
            if destination.exists():
                previous = backup / relative
                previous.parent.mkdir(parents=True, exist_ok=True)
                destination.replace(previous)
            moved.append((destination, previous))
            staged.replace(destination)
    except OSError as error:
        if not _roll_back(moved, made_folders):
            raise AgentImportError(
                f"could not move the import into {target} ({error.strerror or error}), nor put every "
                f"file back: the agent's previous files are in {backup}; copy them back into {target}"
            ) from error
        shutil.rmtree(backup, ignore_errors=True)
        raise AgentImportError(
            f"could not move the import into {target} ({error.strerror or error}); the agent is unchanged. "
            f"Check that {target} is writable and not open in another program, then import again"
        ) from error
    shutil.rmtree(backup, ignore_errors=True)


def _roll_back(moved: list[tuple[Path, Path | None]], made_folders: list[Path]) -> bool:
    """Undo the moves; False when a previous version could not be put back (it stays in the backup)."""
    restored = True
    for destination, previous in reversed(moved):
        try:
            if previous is not None:
                previous.replace(destination)
            else:
                destination.unlink(missing_ok=True)
        except OSError:
            restored = False
    for folder in reversed(made_folders):
        with contextlib.suppress(OSError):
            folder.rmdir()
    return restored
