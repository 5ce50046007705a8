"""A keyring backend in one JSON file, for child processes that must share a sign-in (never the real keyring).

A command-line run is one process; a user's keyring outlives it. The conformance client runs several
``contextdesk`` commands in a row, so their keyring is this file, named by ``CONTEXTDESK_TEST_KEYRING``
(select it with ``PYTHON_KEYRING_BACKEND=tests.support.file_keyring.FileKeyring``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

__all__ = ["KEYRING_FILE_VARIABLE", "FileKeyring"]

KEYRING_FILE_VARIABLE = "CONTEXTDESK_TEST_KEYRING"


class FileKeyring(KeyringBackend):
    """Passwords in the JSON file ``$CONTEXTDESK_TEST_KEYRING``; ``priority`` above zero so ContextDesk
    counts it as a real keyring."""

    priority = 1  # type: ignore[assignment]

    def _path(self) -> Path:
        return Path(os.environ[KEYRING_FILE_VARIABLE])

    def _entries(self) -> dict[str, str]:
        path = self._path()
        entries: dict[str, str] = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        return entries

    def _save(self, entries: dict[str, str]) -> None:
        self._path().write_text(json.dumps(entries), encoding="utf-8")

    def get_password(self, service: str, username: str) -> str | None:
        return self._entries().get(f"{service}\n{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        entries = self._entries()
        entries[f"{service}\n{username}"] = password
        self._save(entries)

    def delete_password(self, service: str, username: str) -> None:
        entries = self._entries()
        if entries.pop(f"{service}\n{username}", None) is None:
            raise PasswordDeleteError(username)
        self._save(entries)
