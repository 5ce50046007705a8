"""Where an import may go: an agent folder to merge into, or a new (or empty) folder that becomes
one. Never a folder of someone's other files (the import would mix an agent into them), and never
a folder inside another agent's folder (that agent would then hold a second agent's files)."""

from __future__ import annotations

from pathlib import Path

from agent_core.agent.agent import AGENT_FILE
from agent_core.agent.importers._common import AgentImportError

__all__ = ["check_import_target"]


def check_import_target(target: Path) -> bool:
    """True when ``target`` is an agent folder the import merges into; False when it is new (or
    an empty folder) and becomes the imported agent. Nothing is written.

    Raises:
        AgentImportError: ``target`` is a file, a folder holding other files, or inside another
            agent's folder; the message says what to choose instead.
    """
    target = target.expanduser()
    if not target.is_absolute():
        raise AgentImportError(f"{target} is not a full path: choose the folder with its parent folders")
    if target.exists() and not target.is_dir():
        raise AgentImportError(f"{target} is a file, not a folder: choose a folder for the agent")
    if (target / AGENT_FILE).is_file():
        return True
    for parent in target.resolve().parents:
        if (parent / AGENT_FILE).is_file():
            raise AgentImportError(
                f"{target} is inside the agent folder {parent}: an agent there would be mixed into that "
                f"one; choose a folder outside it (or {parent} itself, to import into that agent)"
            )
    if target.is_dir() and any(target.iterdir()):
        raise AgentImportError(
            f"{target} already holds files and is not an agent folder: choose a new folder name (it is "
            "created) or an empty folder, so none of your files is mixed into the agent"
        )
    return False
