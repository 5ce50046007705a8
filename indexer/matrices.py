"""Whole matrices of large document sets, kept beside the embedding cache: a second start of an
agent of tens of thousands of chunks reads one file instead of looking up every vector.

A file is named by a hash of the model id and every chunk hash in order, so it can only ever
hold exactly the matrix it names; a damaged or foreign file is ignored (and the vectors come
from the cache as before). At most ``KEPT`` files are kept, the least recently used go first.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from indexer.backends import FloatMatrix

__all__ = ["MIN_CHUNKS", "MatrixFiles"]

logger = logging.getLogger(__name__)

#: Smaller sets are read from the cache as quickly as from a file: only larger ones get a file.
MIN_CHUNKS = 5_000
KEPT = 4
_FOLDER = "matrices"


class MatrixFiles:
    def __init__(self, directory: Path | None) -> None:
        """Files in ``directory``/matrices; None: nothing is kept."""
        self.folder = directory / _FOLDER if directory is not None else None

    def _path(self, model_id: str, hashes: Sequence[bytes]) -> Path | None:
        if self.folder is None or len(hashes) < MIN_CHUNKS:
            return None
        digest = hashlib.sha256(model_id.encode())
        for h in hashes:
            digest.update(h)
        return self.folder / f"{digest.hexdigest()[:40]}.npy"

    def load(self, model_id: str, hashes: Sequence[bytes], dimension: int) -> FloatMatrix | None:
        """The matrix of these chunks, if a file holds it (memory-mapped, read-only)."""
        path = self._path(model_id, hashes)
        if path is None or not path.exists():
            return None
        try:
            matrix = np.load(path, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError) as error:
            logger.warning("ignoring the damaged matrix file %s (%s)", path, error)
            return None
        if matrix.dtype != np.float32 or matrix.shape != (len(hashes), dimension):
            return None
        os.utime(path)  # recently used: kept
        return matrix  # type: ignore[no-any-return]

    def save(self, model_id: str, hashes: Sequence[bytes], matrix: FloatMatrix) -> None:
        """Keep ``matrix`` for the next start (written whole to a temporary file, then renamed)."""
        path = self._path(model_id, hashes)
        if path is None or path.exists():
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as handle:
                np.save(handle, np.ascontiguousarray(matrix, dtype=np.float32), allow_pickle=False)
            Path(handle.name).replace(path)
            self._prune(path.parent)
        except OSError as error:
            logger.warning(
                "could not keep the matrix file %s (%s); the next start reads the cache", path, error
            )

    def load_arrays(self, key: str) -> dict[str, npt.NDArray[np.generic]] | None:
        """Arrays kept under ``key`` (e.g. a lexical index), or None."""
        if self.folder is None or not (path := self.folder / f"{key}.npz").exists():
            return None
        try:
            with np.load(path, allow_pickle=False) as stored:
                arrays = {name: stored[name] for name in stored.files}
        except (OSError, ValueError, KeyError) as error:
            logger.warning("ignoring the damaged index file %s (%s)", path, error)
            return None
        os.utime(path)
        return arrays

    def save_arrays(self, key: str, arrays: dict[str, npt.NDArray[np.generic]]) -> None:
        if self.folder is None or (path := self.folder / f"{key}.npz").exists():
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.folder, suffix=".tmp", delete=False) as handle:
                np.savez(handle, allow_pickle=False, **arrays)
            Path(handle.name).replace(path)
            self._prune(self.folder)
        except OSError as error:
            logger.warning("could not keep the index file %s (%s)", path, error)

    @staticmethod
    def _prune(folder: Path) -> None:
        for pattern in ("*.npy", "*.npz"):
            files = sorted(folder.glob(pattern), key=lambda p: p.stat().st_mtime, reverse=True)
            for old in files[KEPT:]:
                old.unlink(missing_ok=True)
        for stale in folder.glob("*.tmp"):  # left by a process that died while writing
            if time.time() - stale.stat().st_mtime > 3600:
                stale.unlink(missing_ok=True)
