"""Desktop preferences (window geometry, splitters, recent agents) in an ini file in the config folder.

An explicit file under ``user_dirs().config`` rather than the platform's default QSettings store,
so ``CONTEXTDESK_HOME`` moves these along with everything else (tests rely on it).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from PySide6.QtCore import QSettings

from agent_core.paths import user_dirs

__all__ = [
    "RECENT_LIMIT",
    "add_recent_agent",
    "app_settings",
    "last_folder",
    "new_tools_include",
    "open_tabs",
    "recent_agents",
    "remove_recent_agent",
    "save_open_tabs",
    "set_last_folder",
    "set_new_tools_include",
]

RECENT_LIMIT = 10
NEW_TOOLS_KEY = "servers/newToolsInclude"
LAST_FOLDER_KEY = "dialogs/lastFolder"
_INCLUDE_MODES = ("agent", "always", "manual")


def app_settings() -> QSettings:
    path = user_dirs().config / "desktop.ini"
    path.parent.mkdir(parents=True, exist_ok=True)
    return QSettings(str(path), QSettings.Format.IniFormat)


def recent_agents() -> list[Path]:
    value = app_settings().value("agents/recent", [])
    # The ini format reads a one-element list back as a plain string.
    values: list[object] = (
        [value] if isinstance(value, str) else list(value) if isinstance(value, list) else []
    )
    return [Path(v) for v in values if isinstance(v, str) and v]


def add_recent_agent(path: Path) -> None:
    path = path.resolve()
    paths = [path, *(p for p in recent_agents() if p != path)][:RECENT_LIMIT]
    settings = app_settings()
    settings.setValue("agents/recent", [str(p) for p in paths])
    settings.sync()


def remove_recent_agent(path: Path) -> None:
    settings = app_settings()
    settings.setValue("agents/recent", [str(p) for p in recent_agents() if p != path])
    settings.sync()


def _tabs_key(agent_root: Path) -> str:
    # One entry per agent folder; the ini file needs a key without slashes.
    return "tabs/" + hashlib.sha256(str(agent_root).encode()).hexdigest()[:16]


def open_tabs(agent_root: Path) -> tuple[list[str], str]:
    """The chats that were open for this agent when the app last closed, and the current one."""
    value = app_settings().value(_tabs_key(agent_root), [])
    ids = (
        [value]
        if isinstance(value, str)
        else [v for v in value if isinstance(v, str)]
        if isinstance(value, list)
        else []
    )
    current = app_settings().value(_tabs_key(agent_root) + "-current", "")
    return [i for i in ids if i], current if isinstance(current, str) else ""


def save_open_tabs(agent_root: Path, ids: list[str], current: str) -> None:
    settings = app_settings()
    settings.setValue(_tabs_key(agent_root), ids)
    settings.setValue(_tabs_key(agent_root) + "-current", current)
    settings.sync()


def new_tools_include() -> str:
    """How a newly added server's tools join chats (Preferences); "agent" unless changed."""
    value = app_settings().value(NEW_TOOLS_KEY, "agent")
    return value if value in _INCLUDE_MODES else "agent"


def set_new_tools_include(mode: str) -> None:
    if mode not in _INCLUDE_MODES:
        raise ValueError(f"unknown include mode {mode!r}")
    settings = app_settings()
    settings.setValue(NEW_TOOLS_KEY, mode)
    settings.sync()


def last_folder() -> Path | None:
    """The folder of the last file or folder picked in any file dialog, if it still exists."""
    value = app_settings().value(LAST_FOLDER_KEY, "")
    path = Path(value) if isinstance(value, str) and value else None
    return path if path is not None and path.is_dir() else None


def set_last_folder(path: Path) -> None:
    settings = app_settings()
    settings.setValue(LAST_FOLDER_KEY, str(path))
    settings.sync()
