"""Reading what a damaged chat database still holds, and repairing it into a new file.

A damaged page makes SQLite stop a table scan where it meets it. The rows after it are still
reachable: a new scan that starts past the damaged page's rowids seeks straight to the next
readable page. :func:`readable_rows` restarts the scan one rowid further each time it fails,
so it returns every row that is not on a damaged page.
"""

from __future__ import annotations

import logging
import os
import socket
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agent_core.database.connection import connect
from agent_core.database.errors import store_error
from agent_core.database.migrations import MIGRATIONS, migrate
from agent_core.database.programs import process_running
from agent_core.errors import UserDataError

__all__ = ["RepairReport", "readable_rows", "repair_database"]

logger = logging.getLogger(__name__)

# How far past the last readable row to keep looking when the table's highest rowid is unreadable.
_SEARCH_PAST_LAST = 100_000


def readable_rows(
    db: sqlite3.Connection, table: str, skipped: list[int] | None = None
) -> Iterator[sqlite3.Row]:
    """Every row of ``table`` (a rowid table) that can be read, in rowid order, skipping the
    damaged parts; the rowids that could not be reached are appended to ``skipped``."""
    upper = _highest_rowid(db, table)
    select = f"SELECT rowid AS _rowid, * FROM {table} WHERE rowid"
    next_id = 1
    while upper is None or next_id <= upper:
        try:
            for row in db.execute(f"{select} >= ? ORDER BY rowid", (next_id,)):
                next_id = row["_rowid"] + 1
                yield row
            return
        except sqlite3.DatabaseError:
            # The scan reads a row ahead, so the row at next_id may be readable on its own.
            if upper is None:
                upper = next_id + _SEARCH_PAST_LAST
            try:
                row = db.execute(f"{select} = ?", (next_id,)).fetchone()
            except sqlite3.DatabaseError:
                if skipped is not None:
                    skipped.append(next_id)
            else:
                if row is not None:
                    yield row
            next_id += 1


def _highest_rowid(db: sqlite3.Connection, table: str) -> int | None:
    """The table's highest rowid (AUTOINCREMENT's record of it first), if it can be read."""
    for sql, parameters in (
        ("SELECT seq FROM sqlite_sequence WHERE name = ?", (table,)),
        (f"SELECT max(rowid) FROM {table}", ()),
    ):
        try:
            row = db.execute(sql, parameters).fetchone()
        except sqlite3.DatabaseError:
            continue
        if row is not None and row[0] is not None:
            return int(row[0])
    return None


@dataclass(frozen=True)
class RepairReport:
    sessions: int  # chats saved
    messages: int  # messages saved
    lost_messages: int  # message ids that could not be read (deleted messages count too)
    damaged_copy: Path  # where the old file is now

    def summary(self) -> str:
        lost = (
            f"; about {self.lost_messages} message(s) could not be read"
            if self.lost_messages
            else "; nothing unreadable was found"
        )
        return (
            f"Saved {self.sessions} chat(s) and {self.messages} message(s) into a new database{lost}. "
            f"The old file is kept as {self.damaged_copy}."
        )


def repair_database(path: Path) -> RepairReport:
    """Copy what SQLite can still read from the chat database at ``path`` into a new one that
    takes its place; the old file (with its WAL) is kept beside it, renamed with a timestamp.

    Raises:
        UserDataError: there is no database, another program is using it, or the new one cannot
            be written.
    """
    if not path.is_file():
        raise UserDataError(f"there is no chat database at {path}: nothing to repair")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    fresh = path.with_name(f"{path.name}.repairing")
    damaged_copy = path.with_name(f"{path.name}.damaged-{stamp}")
    for leftover in _with_journals(fresh):
        leftover.unlink(missing_ok=True)
    try:
        old = sqlite3.connect(path, isolation_level=None, timeout=2.0)
        old.row_factory = sqlite3.Row
    except sqlite3.Error as error:
        raise store_error(error, path, "cannot open the chat database to repair it") from error
    try:
        _refuse_if_in_use(old, path)
        new = sqlite3.connect(fresh, isolation_level=None)
        try:
            new.execute("PRAGMA journal_mode=WAL")
            migrate(new, upto=_schema_version(old))
            lost: list[int] = []
            new.execute("BEGIN")
            sessions = _copy(old, new, "sessions", [])
            messages = _copy(old, new, "messages", lost)
            sessions += _recreate_missing_sessions(new)
            new.execute("COMMIT")
        finally:
            new.close()
        connect(fresh).close()  # the migrations the old file lacked
    except sqlite3.Error as error:
        raise store_error(error, fresh, "could not write the repaired chat database") from error
    finally:
        old.close()
    for old_file, kept in zip(_with_journals(path), _with_journals(damaged_copy), strict=True):
        if old_file.exists():
            old_file.rename(kept)
    fresh.rename(path)
    for leftover in _with_journals(fresh)[1:]:
        leftover.unlink(missing_ok=True)
    report = RepairReport(sessions, messages, len(lost), damaged_copy)
    logger.info("repaired %s: %s", path, report)
    return report


def _with_journals(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def _refuse_if_in_use(old: sqlite3.Connection, path: Path) -> None:
    """Stop when another program is writing to the database (its work would be lost)."""
    try:
        leases = old.execute("SELECT holder, host, pid FROM chat_leases").fetchall()
    except sqlite3.DatabaseError:
        leases = []  # an older or damaged file: nothing to learn from it
    host = socket.gethostname()
    for lease in leases:
        if lease["host"] == host and lease["pid"] != os.getpid() and process_running(lease["pid"]):
            raise UserDataError(
                f"cannot repair the chat database while {lease['holder']} has a chat open in it: "
                "close that program (or its chat), then run `contextdesk sessions repair` again"
            )
    try:
        old.execute("BEGIN IMMEDIATE")
        old.execute("ROLLBACK")
    except sqlite3.OperationalError as error:
        if error.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
            raise store_error(error, path, "cannot repair the chat database while it is in use") from error
    except sqlite3.DatabaseError:
        pass  # too damaged to lock: nothing can be writing to it either


def _schema_version(old: sqlite3.Connection) -> int:
    """The old file's migration number (all of them when unreadable: copy into today's shape)."""
    try:
        row = old.execute("SELECT max(id) FROM schema_migrations").fetchone()
    except sqlite3.DatabaseError:
        return len(MIGRATIONS)
    return min(int(row[0] or len(MIGRATIONS)), len(MIGRATIONS))


def _copy(old: sqlite3.Connection, new: sqlite3.Connection, table: str, lost: list[int]) -> int:
    columns = [row[1] for row in new.execute(f"PRAGMA table_info({table})")]
    copied = 0
    for row in readable_rows(old, table, lost):
        names = row.keys()
        present = [c for c in columns if c in names]
        placeholders = ", ".join("?" for _ in present)
        new.execute(
            f"INSERT OR IGNORE INTO {table}({', '.join(present)}) VALUES ({placeholders})",
            [row[c] for c in present],
        )
        copied += 1
    return copied


def _recreate_missing_sessions(new: sqlite3.Connection) -> int:
    """A chat whose own row was lost but whose messages were saved gets a new row."""
    missing = new.execute(
        "SELECT session_id, min(created_at), max(created_at) FROM messages "
        "WHERE session_id NOT IN (SELECT id FROM sessions) GROUP BY session_id"
    ).fetchall()
    for session_id, first, last in missing:
        new.execute(
            "INSERT INTO sessions(id, title, created_at, updated_at) VALUES (?, 'Recovered chat', ?, ?)",
            (session_id, first, last),
        )
    return len(missing)
