"""On-disk embedding cache: one SQLite file (WAL mode) keyed by (model id, sha256 of chunk text).

Content-addressed, so it is shared by every agent, session and process, survives restarts, and
never needs invalidating: an edited chunk has a new hash, a new model has a new id. SQLite's
WAL mode lets several processes read while one writes; within a process one connection is
shared behind a lock. If the file cannot be used the cache degrades to a no-op and logs why.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

from indexer.backends import FloatMatrix

__all__ = ["EmbeddingCache", "text_hash"]

logger = logging.getLogger(__name__)

_FILE_NAME = "embeddings.sqlite3"
_BUSY_TIMEOUT_MS = 10_000
_MAX_VARIABLES = 500


def text_hash(text: str) -> bytes:
    """The cache key of a chunk's text (sha256 of its UTF-8 bytes)."""
    return hashlib.sha256(text.encode("utf-8")).digest()


def _migration_1(db: sqlite3.Connection) -> None:
    db.execute(
        "CREATE TABLE embeddings ("
        " model_id TEXT NOT NULL,"
        " text_hash BLOB NOT NULL,"
        " vector BLOB NOT NULL,"
        " PRIMARY KEY (model_id, text_hash)"
        ") WITHOUT ROWID"
    )


#: Append-only; migration N runs once, when PRAGMA user_version is below N.
_MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_migration_1,)


class EmbeddingCache:
    """Float32 vectors stored by (model id, text hash). Thread-safe; safe across processes."""

    def __init__(self, directory: Path | None) -> None:
        """Open (creating if needed) the cache in ``directory``; ``None``: a cache that stores nothing."""
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self.path = directory / _FILE_NAME if directory is not None else None
        if self.path is not None:
            try:
                self._db = self._open_when_free(self.path)
            except (OSError, sqlite3.Error) as exc:
                logger.warning(
                    "embedding cache %s is unusable (%s); embeddings will not persist. "
                    "Delete the file or check the folder's permissions to fix this.",
                    self.path,
                    exc,
                )
                self._db = None

    @property
    def enabled(self) -> bool:
        """Whether vectors are being persisted."""
        return self._db is not None

    @classmethod
    def _open_when_free(cls, path: Path) -> sqlite3.Connection:
        """Open, waiting a while for another process that is opening the same new file: SQLite
        does not wait (busy_timeout) while one of them switches it to WAL, it says "locked"."""
        deadline = time.monotonic() + _BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                return cls._open(path)
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)

    @staticmethod
    def _open(path: Path) -> sqlite3.Connection:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(
            path, timeout=_BUSY_TIMEOUT_MS / 1000, check_same_thread=False, isolation_level=None
        )
        db.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("BEGIN IMMEDIATE")
        try:
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            for number, migration in enumerate(_MIGRATIONS, start=1):
                if version < number:
                    migration(db)
                    db.execute(f"PRAGMA user_version = {number}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return db

    def get_many(self, model_id: str, hashes: Sequence[bytes], dimension: int) -> dict[bytes, FloatMatrix]:
        """The cached vectors among ``hashes`` for ``model_id`` (missing ones are simply absent)."""
        found: dict[bytes, FloatMatrix] = {}
        if self._db is None or not hashes:
            return found
        unique = list(dict.fromkeys(hashes))
        try:
            with self._lock:
                for start in range(0, len(unique), _MAX_VARIABLES):
                    part = unique[start : start + _MAX_VARIABLES]
                    marks = ",".join("?" * len(part))
                    rows = self._db.execute(
                        "SELECT text_hash, vector FROM embeddings"
                        f" WHERE model_id = ? AND text_hash IN ({marks})",
                        (model_id, *part),
                    ).fetchall()
                    for key, blob in rows:
                        vector = np.frombuffer(blob, dtype=np.float32)
                        if vector.shape == (dimension,):
                            found[bytes(key)] = vector
        except sqlite3.Error as exc:
            logger.warning("embedding cache read failed (%s); recomputing those embeddings", exc)
        return found

    def contains_many(self, model_id: str, hashes: Sequence[bytes]) -> set[bytes]:
        """Which of ``hashes`` have a vector for ``model_id`` (without reading the vectors)."""
        found: set[bytes] = set()
        if self._db is None or not hashes:
            return found
        unique = list(dict.fromkeys(hashes))
        try:
            with self._lock:
                for start in range(0, len(unique), _MAX_VARIABLES):
                    part = unique[start : start + _MAX_VARIABLES]
                    marks = ",".join("?" * len(part))
                    rows = self._db.execute(
                        f"SELECT text_hash FROM embeddings WHERE model_id = ? AND text_hash IN ({marks})",
                        (model_id, *part),
                    ).fetchall()
                    found.update(bytes(key) for (key,) in rows)
        except sqlite3.Error as exc:
            logger.warning("embedding cache read failed (%s); those embeddings count as missing", exc)
        return found

    def put_many(
        self, model_id: str, vectors: Mapping[bytes, FloatMatrix] | Iterable[tuple[bytes, FloatMatrix]]
    ) -> None:
        """Store vectors for ``model_id``; an existing entry for the same key is kept."""
        if self._db is None:
            return
        items = vectors.items() if isinstance(vectors, Mapping) else vectors
        rows = [(model_id, key, np.ascontiguousarray(v, dtype=np.float32).tobytes()) for key, v in items]
        if not rows:
            return
        try:
            with self._lock:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    self._db.executemany(
                        "INSERT OR IGNORE INTO embeddings (model_id, text_hash, vector) VALUES (?, ?, ?)",
                        rows,
                    )
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
        except sqlite3.Error as exc:
            logger.warning("embedding cache write failed (%s); embeddings will be recomputed next time", exc)

    def count(self, model_id: str | None = None) -> int:
        """How many vectors are stored (for ``model_id``, or for every model)."""
        if self._db is None:
            return 0
        with self._lock:
            if model_id is None:
                row = self._db.execute("SELECT COUNT(*) FROM embeddings").fetchone()
            else:
                row = self._db.execute(
                    "SELECT COUNT(*) FROM embeddings WHERE model_id = ?", (model_id,)
                ).fetchone()
        return int(row[0])

    def close(self) -> None:
        """Close the file; later calls behave like a disabled cache."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
