"""Where ContextDesk keeps user data: chats, caches, settings, recent agents.

``CONTEXTDESK_HOME`` moves everything under one root (tests always set it); otherwise the
platform's usual folders for the app name ``contextdesk`` are used.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

__all__ = ["APP_NAME", "UserDirs", "user_dirs"]

APP_NAME = "contextdesk"
HOME_ENV = "CONTEXTDESK_HOME"


@dataclass(frozen=True)
class UserDirs:
    """The folders ContextDesk writes to. None of them is created until it is needed."""

    data: Path
    cache: Path
    config: Path

    @property
    def database(self) -> Path:
        return self.data / "contextdesk.sqlite3"

    @property
    def embeddings_cache(self) -> Path:
        return self.cache / "embeddings"

    @property
    def settings_file(self) -> Path:
        return self.config / "settings.json"


def user_dirs() -> UserDirs:
    """The user folders in force now (reads ``CONTEXTDESK_HOME`` on every call)."""
    root = os.environ.get(HOME_ENV)
    if root:
        base = Path(root).expanduser()
        return UserDirs(data=base / "data", cache=base / "cache", config=base / "config")
    return UserDirs(
        data=Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
        cache=Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
        config=Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
    )
