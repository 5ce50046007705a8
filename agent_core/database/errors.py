"""What went wrong with the database, worded per cause with the fix for that cause only."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Literal

from agent_core.errors import UserDataError

__all__ = ["StoreError", "StoreProblem", "store_error"]


# What went wrong with the database, so that each front end can add its own hint (the desktop:
# "your message is back in the box").
# "in_use": another program is writing to the chat (its lease).
StoreProblem = Literal["full", "locked", "read_only", "damaged", "disk", "in_use", "other"]


class StoreError(UserDataError):
    """The app's database (chats, memories, workflow runs) could not be used; ``problem`` says why,
    the message says what to do."""

    def __init__(self, message: str, problem: StoreProblem = "other") -> None:
        super().__init__(message)
        self.problem: StoreProblem = problem


_PROBLEMS: dict[int, StoreProblem] = {
    sqlite3.SQLITE_FULL: "full",
    sqlite3.SQLITE_BUSY: "locked",
    sqlite3.SQLITE_LOCKED: "locked",
    sqlite3.SQLITE_READONLY: "read_only",
    sqlite3.SQLITE_CANTOPEN: "read_only",
    sqlite3.SQLITE_PERM: "read_only",
    sqlite3.SQLITE_AUTH: "read_only",
    sqlite3.SQLITE_CORRUPT: "damaged",
    sqlite3.SQLITE_NOTADB: "damaged",
    sqlite3.SQLITE_IOERR: "disk",
}


def store_error(error: sqlite3.Error, path: Path, doing: str) -> StoreError:
    """The user's view of an SQLite error met while ``doing`` something ("could not save the
    chat") with the database at ``path``: what happened and the fix for that cause only."""
    code = getattr(error, "sqlite_errorcode", None)
    problem = _PROBLEMS.get(code & 0xFF, "other") if isinstance(code, int) else "other"
    if problem == "other" and isinstance(error, sqlite3.DatabaseError) and "malformed" in str(error):
        problem = "damaged"
    fix = {
        "full": "the disk is full: free some space and try again",
        "locked": "another program holds a lock on the database (another ContextDesk window or "
        "`contextdesk` command writing to it): let it finish or close it, then try again",
        "read_only": f"the database or its folder {path.parent} is not writable: make them writable "
        "(for example `chmod u+w`), or set CONTEXTDESK_HOME to a writable folder",
        "damaged": "the database file is damaged: run `contextdesk sessions repair` to copy what can "
        "still be read into a new database (the damaged file is kept beside it), or move it "
        "away and ContextDesk will start a new one",
        "disk": "the disk reported a read or write error: check the disk and try again",
        "other": "try again; if it keeps happening, run `contextdesk sessions repair`",
    }[problem]
    return StoreError(f"{doing} ({path}: {error}): {fix}", problem)
