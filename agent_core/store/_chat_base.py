"""The chat store on the app's database: who writes through it, and one writer per chat.

Every write to a chat takes or refreshes the chat's lease (a row naming the program, its host and
pid, and when it last wrote), and a write to a chat whose lease another live program holds is
refused, naming it. A lease is taken over once its program has ended, or after
LEASE_STALE_SECONDS without a write; closing the store releases this program's leases.
"""

from __future__ import annotations

import logging
import os
import socket
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

from agent_core.database.base import SqliteStore
from agent_core.database.errors import StoreError
from agent_core.errors import UserDataError
from agent_core.store.leases import claim, this_program

__all__ = ["ChatStoreBase"]

logger = logging.getLogger(__name__)

_SAVING = "could not save the chat"


class ChatStoreBase(SqliteStore):
    """The connection, the leases, and the writes that take them (the parts of ``ChatStore``
    build on it)."""

    closed_reading: ClassVar[str] = "the chat store is closed: reopen the chat"
    closed_writing: ClassVar[str] = "the chat store was closed while a chat was still saving: reopen the chat"
    # A broken constraint (a message for a deleted chat) is the caller's mistake, not the file's.
    passed_on: ClassVar[tuple[type[sqlite3.Error], ...]] = (sqlite3.IntegrityError,)

    def __init__(self, path: Path | None = None, *, busy_timeout: float = 10.0) -> None:
        super().__init__(path, busy_timeout=busy_timeout)
        # Set when a read met a damaged part of the file and returned only what it could read.
        self.damage: StoreError | None = None
        # Who writes through this store, as named to a second writer of the same chat.
        self.holder = f"{this_program()} (pid {os.getpid()})"
        self._host = socket.gethostname()

    def _closing(self, db: sqlite3.Connection) -> None:
        """Release this program's chat leases."""
        try:
            db.execute("DELETE FROM chat_leases WHERE host = ? AND pid = ?", (self._host, os.getpid()))
        except sqlite3.DatabaseError as error:  # left behind, they are taken over when stale
            logger.warning("could not release the chat leases in %s: %s", self.path, error)

    @contextmanager
    def _saving(self) -> Iterator[sqlite3.Connection]:
        """A transaction that takes no chat's lease (the caller takes the leases it needs)."""
        with self._transaction(_SAVING) as db:
            yield db

    @contextmanager
    def _writing(self, session_id: str) -> Iterator[sqlite3.Connection]:
        """A transaction writing to one chat, which takes or refreshes the chat's lease first.

        Raises:
            StoreError: another program is writing to the chat (``problem == "in_use"``), or the
                database could not be written.
        """
        with self._saving() as db:
            self._claim(db, session_id)
            yield db

    def _claim(self, db: sqlite3.Connection, session_id: str) -> None:
        """Take or refresh this program's lease on the chat, inside a write transaction."""
        claim(db, session_id, self.holder, self._host)

    def acquire_lease(self, session_id: str) -> None:
        """Become the one program writing to this chat (every write does this too).

        Raises:
            StoreError: another program is writing to the chat (``problem == "in_use"``).
        """
        with self._writing(session_id):
            pass

    def release_lease(self, session_id: str) -> None:
        """Let other programs write to this chat (when it is closed here). Never raises: a lease
        left behind is taken over once stale."""
        try:
            with self._saving() as db:
                db.execute(
                    "DELETE FROM chat_leases WHERE session_id = ? AND host = ? AND pid = ?",
                    (session_id, self._host, os.getpid()),
                )
        except UserDataError as error:
            logger.warning("could not release the lease on chat %s: %s", session_id, error)
