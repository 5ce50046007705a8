"""The base of every store on the app's database file: a connection of its own, opened and
migrated, and the one lock that every store on the same file in this process shares.

Chats, memories, workflow runs and what selection learned live in one file, each behind its own
store. Each store keeps its own connection (so that ``PRAGMA data_version`` tells one store of
another's writes), but they all take turns through the file's one lock: two of them never write
at once, so this program never meets its own write as "database is locked", and no connection is
used by two threads at once. Other programs still read through WAL meanwhile, and a write of
another program is waited for up to ``busy_timeout`` seconds (SQLite's busy handler).

Blocking calls: callers on an event loop or the GUI thread run them with ``asyncio.to_thread``.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, ClassVar

from agent_core.database.connection import connect
from agent_core.database.errors import StoreError, store_error
from agent_core.paths import user_dirs

__all__ = ["LOCK_WAIT_SECONDS", "FileLock", "SqliteStore", "file_lock"]

logger = logging.getLogger(__name__)

#: The longest a store waits for another store of this program to finish with the file (a memory
#: import writes in batches of many lines); past it, the call fails as "locked" instead of hanging.
LOCK_WAIT_SECONDS = 60.0


class FileLock:
    """The one lock of a database file in this process (re-entrant: a thread holding it may take
    it again, through the same store or another one on the file)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.RLock()

    @contextmanager
    def held(self, doing: str) -> Iterator[None]:
        """Hold the lock, waiting at most :data:`LOCK_WAIT_SECONDS` for it.

        Raises:
            StoreError: another task of this program kept the file busy longer (``"locked"``).
        """
        wait = LOCK_WAIT_SECONDS
        if not self._lock.acquire(timeout=wait):
            raise StoreError(
                f"{doing} ({self.path}: another task of this program has been using the database for "
                f"over {wait:g} s): let it finish (a memory import, for example) and try again",
                "locked",
            )
        try:
            yield
        finally:
            self._lock.release()


_LOCKS: weakref.WeakValueDictionary[Path, FileLock] = weakref.WeakValueDictionary()
_LOCKS_GUARD = threading.Lock()


def file_lock(path: Path) -> FileLock:
    """The one lock of the database file at ``path`` in this process, whatever the spelling of
    the path (it is resolved, links followed). It lives as long as a store holds it."""
    key = path.resolve()
    with _LOCKS_GUARD:
        lock = _LOCKS.get(key)
        if lock is None:
            lock = FileLock(key)
            _LOCKS[key] = lock
        return lock


# A transaction, or inside one already open on the connection, a savepoint (undone alone,
# committed with the outer transaction).
_OUTER = ("BEGIN IMMEDIATE", "COMMIT", ("ROLLBACK",))
_NESTED = ("SAVEPOINT store_write", "RELEASE store_write", ("ROLLBACK TO store_write", "RELEASE store_write"))


class SqliteStore:
    """A store on the app's database file (by default the user's): its connection, the file's
    lock, and reads and writes that turn SQLite's errors into a :class:`StoreError` worded per
    cause ("could not save the chat (...): the disk is full: free some space and try again")."""

    #: What a use after :meth:`close` says, reading and writing (a store words it for its users).
    closed_reading: ClassVar[str] = "the database connection is closed: open it again"
    closed_writing: ClassVar[str] = "the database connection was closed while saving: open it again"
    #: SQLite errors passed on as they are instead of as a StoreError.
    passed_on: ClassVar[tuple[type[sqlite3.Error], ...]] = ()

    def __init__(self, path: Path | None = None, *, busy_timeout: float = 10.0) -> None:
        """Open (creating and migrating it if needed) the database at ``path``.

        Raises:
            UserDataError: the file cannot be opened, is not a ContextDesk database, or is newer
                than this version of ContextDesk.
        """
        self.path = path or user_dirs().database
        self._db = connect(self.path, busy_timeout=busy_timeout)
        self._lock = file_lock(self.path)
        self._closed = False

    def close(self) -> None:
        """Close the connection (a store's last words first: :meth:`_closing`). Never raises: a
        store still busy after :data:`LOCK_WAIT_SECONDS` is left open, with a warning."""
        try:
            with self._lock.held(f"could not close the database {self.path}"):
                if self._closed:
                    return
                self._closed = True
                self._closing(self._db)
                self._db.close()
        except StoreError as error:
            logger.warning("%s", error)

    def _closing(self, db: sqlite3.Connection) -> None:
        """What the store writes before its connection closes (nothing here)."""

    @contextmanager
    def _reading(self, doing: str) -> Iterator[sqlite3.Connection]:
        """The connection, for reads while the file's lock is held; ``doing`` ("could not read
        the saved chats") starts the message of a StoreError.

        Raises:
            StoreError: the database could not be read, or the store is closed.
        """
        with self._lock.held(doing):
            if self._closed:
                raise StoreError(self.closed_reading)
            try:
                yield self._db
            except self.passed_on:
                raise
            except sqlite3.Error as error:
                raise store_error(error, self.path, doing) from error

    @contextmanager
    def _transaction(self, doing: str) -> Iterator[sqlite3.Connection]:
        """The connection inside one transaction: every change made in the block commits, or
        none. Inside a transaction already open on this store, a savepoint: undone alone,
        committed with the outer transaction.

        Raises:
            StoreError: the database could not be written, or the store is closed.
        """
        with self._lock.held(doing):
            if self._closed:
                raise StoreError(self.closed_writing)
            begin, done, undo = _NESTED if self._db.in_transaction else _OUTER
            try:
                self._db.execute(begin)
                yield self._db
                self._db.execute(done)
            except self.passed_on:
                self._undo(undo)
                raise
            except sqlite3.Error as error:
                self._undo(undo)
                raise store_error(error, self.path, doing) from error
            except BaseException:
                self._undo(undo)
                raise

    def _undo(self, statements: tuple[str, ...]) -> None:
        # SQLite rolls the whole transaction back itself on some errors (a full disk, an I/O
        # error): then there is nothing left to undo, and ROLLBACK would fail over the real error.
        if not self._db.in_transaction:
            return
        with suppress(sqlite3.DatabaseError):
            for statement in statements:
                self._db.execute(statement)

    def _select(self, sql: str, values: Sequence[Any], doing: str) -> list[sqlite3.Row]:
        """The rows of one query.

        Raises:
            StoreError: the database could not be read, or the store is closed.
        """
        with self._reading(doing) as db:
            return db.execute(sql, values).fetchall()

    def _change(self, sql: str, values: Sequence[Any], doing: str) -> int:
        """Run one statement in its own transaction; how many rows it changed.

        Raises:
            StoreError: the database could not be written, or the store is closed.
        """
        with self._lock.held(doing):
            if self._db.in_transaction:  # inside a write already open: a savepoint of it
                with self._transaction(doing) as db:
                    return db.execute(sql, values).rowcount
            if self._closed:
                raise StoreError(self.closed_writing)
            # Outside one, the connection commits each statement by itself (isolation_level None):
            # one statement is its own transaction, with no BEGIN and COMMIT round trips.
            try:
                return self._db.execute(sql, values).rowcount
            except self.passed_on:
                raise
            except sqlite3.Error as error:
                raise store_error(error, self.path, doing) from error
