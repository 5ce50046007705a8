"""Atomic file writes: a reader sees the old file or the new one, never half of either."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path

from agent_core.errors import ContextDeskError

__all__ = ["AtomicWriteError", "atomic_write_text"]


class AtomicWriteError(ContextDeskError):
    """A file could not be written; the previous version is unchanged."""


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename.

    Raises:
        AtomicWriteError: the write failed (disk full, no permission...); ``path`` is untouched.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    descriptor, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    temp_path = Path(temp_name)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            with contextlib.suppress(OSError):
                temp_path.chmod(path.stat().st_mode & 0o777)
        temp_path.replace(path)
    except OSError as error:
        with contextlib.suppress(OSError):
            temp_path.unlink()
        raise AtomicWriteError(_explain(path, error)) from error
    _fsync_folder(path.parent)


def _explain(path: Path, error: OSError) -> str:
    if error.errno == errno.ENOSPC:
        fix = "free some disk space and save again"
    elif error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        fix = f"make {path.parent} writable for your user, or save the agent elsewhere"
    else:
        fix = "check the folder and save again"
    return f"could not save {path} ({error.strerror or error}): {fix}; the previous version is unchanged"


def _fsync_folder(folder: Path) -> None:
    # The rename is durable only once the folder entry is on disk (POSIX); Windows has no such call.
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
