"""Creating new agents from the default agent that ships with ContextDesk."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from agent_core.agent.agent import AGENT_FILE, Agent
from agent_core.agent.loader import load_agent
from agent_core.agent.writer import save_agent_config
from agent_core.errors import AgentFileError
from agent_core.paths import user_dirs
from agent_core.resources import default_agent_dir

__all__ = ["agent_folder_in", "create_agent", "default_agent_path", "ensure_default_agent"]


def agent_folder_in(place: Path, name: str) -> Path:
    """Where a new agent called ``name`` goes when the user picks the folder ``place``: ``place``
    itself when it is empty, else a new folder in it named after the agent ("Support Bot" ->
    ``support-bot``), so a user never has to create the folder first."""
    place = place.expanduser()
    if place.is_dir() and not any(place.iterdir()):
        return place
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "agent"
    return place / slug


def create_agent(target: Path, *, name: str | None = None, template: Path | None = None) -> Agent:
    """Copy the default agent (or ``template``) into ``target`` and load it.

    Raises:
        AgentFileError: ``target`` already holds an agent, or is a non-empty folder.
    """
    target = target.expanduser()
    source = template or default_agent_dir()
    if (target / AGENT_FILE).exists():
        raise AgentFileError(
            f"{target} already holds an agent: open it, or choose another folder for the new one"
        )
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise AgentFileError(
            f"{target} is not empty: choose an empty or new folder so no file of yours is mixed in"
        )
    try:
        shutil.copytree(source, target, dirs_exist_ok=True)
    except OSError as error:
        shutil.rmtree(target, ignore_errors=True)
        raise AgentFileError(f"could not create the agent in {target} ({error}): check the folder") from error
    agent = load_agent(target)
    if name:
        agent.config.name = name
        save_agent_config(agent)
    return agent


def default_agent_path() -> Path:
    """Where the user's own copy of the default agent lives."""
    return user_dirs().data / "agents" / "default"


def ensure_default_agent() -> Path:
    """The user's default agent folder, created from the shipped one on first use."""
    path = default_agent_path()
    if not (path / AGENT_FILE).is_file():
        create_agent(path)
    return path
