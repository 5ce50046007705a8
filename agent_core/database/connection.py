"""Opening the app's database: WAL mode, foreign keys, and the migrations it lacks."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agent_core.database.errors import store_error
from agent_core.database.migrations import migrate
from agent_core.errors import UserDataError

__all__ = ["connect"]


def connect(path: Path, *, busy_timeout: float = 10.0) -> sqlite3.Connection:
    """Open (creating if needed) and migrate the database at ``path``; a write waits up to
    ``busy_timeout`` seconds for another program's write to finish.

    Raises:
        UserDataError: the file cannot be opened, is not a ContextDesk database, or is newer than
            this version of ContextDesk.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserDataError(
            f"cannot create the chat database {path} ({error.strerror}): check that the folder is writable "
            "or set CONTEXTDESK_HOME to another folder"
        ) from error
    try:
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=busy_timeout)
    except sqlite3.Error as error:
        raise store_error(error, path, "cannot open the chat database") from error
    try:
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA synchronous=NORMAL")
        migrate(db)
    except sqlite3.Error as error:
        db.close()
        raise store_error(error, path, "cannot open the chat database") from error
    except BaseException:
        db.close()
        raise
    return db
