"""Files that ship with ContextDesk (the default agent, icons), found next to the packages."""

from __future__ import annotations

from pathlib import Path

from agent_core.errors import ContextDeskError

__all__ = ["default_agent_dir", "resources_dir"]


def resources_dir() -> Path:
    """The ``resources/`` folder.

    Raises:
        ContextDeskError: the installation is incomplete.
    """
    folder = Path(__file__).resolve().parent.parent / "resources"
    if not folder.is_dir():
        raise ContextDeskError(
            f"ContextDesk's resources are missing (looked in {folder}): reinstall with "
            "`pip install -e .` from a full checkout"
        )
    return folder


def default_agent_dir() -> Path:
    return resources_dir() / "default-agent"
