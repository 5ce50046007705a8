"""Desktop preferences (window geometry, splitters, recent agents) in an ini file in the config folder.

An explicit file under ``user_dirs().config`` rather than the platform's default QSettings store,
so ``CONTEXTDESK_HOME`` moves these along with everything else (tests rely on it).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from agent_core.paths import user_dirs

__all__ = ["RECENT_LIMIT", "add_recent_agent", "app_settings", "recent_agents", "remove_recent_agent"]

RECENT_LIMIT = 10


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
