"""Reading a text file of an agent folder, turning failures into Problems.

An agent folder may come from someone else, so only regular files are read (a named pipe would
block forever, a device could be endless), at most ``MAX_FILE_BYTES`` of them, and never through a
link that leads out of the folder.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from agent_core.agent.items import Problem
from agent_core.errors import AgentFileError

__all__ = [
    "MAX_FILE_BYTES",
    "FileRefused",
    "TextPart",
    "outside_problem",
    "read_bytes",
    "read_head",
    "read_text",
    "read_text_part",
]

MAX_FILE_BYTES = 5 * 1024 * 1024
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_CHUNK = 1024 * 1024
_SKIP_CHARS = 64 * 1024  # characters decoded and dropped at a time on the way to an offset
_BINARY_PROBE = 8192  # a NUL in the first bytes: a binary file


class FileRefused(AgentFileError):
    """A file of the agent folder that is not read, with what is wrong and how to fix it."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(f"{message}. Fix: {fix}")
        self.message = message
        self.fix = fix


def outside_problem(path: Path, root: Path, *, real_root: Path | None = None) -> Problem | None:
    """A Problem when ``path`` really is (through a symlink) outside the agent folder ``root``
    (``real_root``: ``root`` already resolved, when checking many files at once).

    An agent folder may come from someone else: a link in it must not hand the user's own files
    to the model.
    """
    try:
        real = path.resolve()
    except (OSError, RuntimeError) as error:  # a symlink loop
        return Problem(path, f"cannot follow the link: {error}", "replace it with the file itself")
    if real.is_relative_to(real_root or root.resolve()):
        return None
    return Problem(
        path,
        f"links to {real}, outside the agent folder, so it is not read "
        "(an agent folder from someone else could otherwise hand your files to the model)",
        f"copy the file into the agent folder instead of linking to it (cp --remove-destination "
        f"'{real}' '{path}')",
    )


def _not_regular(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _refuse_kind(kind: str) -> FileRefused:
    return FileRefused(
        f"is {kind}, not an ordinary file, so it is not read",
        "replace it with an ordinary text file or remove it",
    )


def _too_large(limit: int) -> FileRefused:
    return FileRefused(
        f"the file is larger than {limit // (1024 * 1024)} MB, so it is not read",
        "split it into several smaller files",
    )


def read_head(path: Path, limit: int) -> tuple[bytes, bool]:
    """At most ``limit`` bytes from the start of the regular file ``path``, and whether the file
    is longer than that (reading at most ``limit`` + 1 bytes).

    Raises:
        FileRefused: the file is missing or unreadable, or is not a regular file (named pipe,
            socket, device, folder).
    """
    try:
        kind = _not_regular(path.stat().st_mode)
        if kind:
            raise _refuse_kind(kind)
        # Non-blocking: should the file be swapped for a pipe after the check, opening still returns.
        descriptor = os.open(path, _OPEN_FLAGS)
        try:
            kind = _not_regular(os.fstat(descriptor).st_mode)
            if kind:
                raise _refuse_kind(kind)
            chunks: list[bytes] = []
            size = 0
            while size <= limit:
                chunk = os.read(descriptor, min(_CHUNK, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        finally:
            os.close(descriptor)
    except OSError as error:
        raise FileRefused(
            f"cannot read the file: {error.strerror}", "check that it exists and you may read it"
        ) from error
    return b"".join(chunks)[:limit], size > limit


def read_bytes(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file ``path``, reading at most ``limit`` + 1 of them.

    Raises:
        FileRefused: the file is missing or unreadable, is not a regular file (named pipe, socket,
            device, folder), or is larger than ``limit``.
    """
    data, longer = read_head(path, limit)
    if longer:
        raise _too_large(limit)
    return data


def read_text(path: Path, problems: list[Problem], *, too_large_fix: str | None = None) -> str | None:
    """The file's UTF-8 text, or None with a Problem recorded."""
    try:
        data = read_bytes(path)
    except FileRefused as refused:
        fix = too_large_fix if too_large_fix and "larger than" in refused.message else refused.fix
        problems.append(Problem(path, refused.message, fix))
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        problems.append(
            Problem(path, f"not UTF-8 text (byte {error.start})", "save the file as UTF-8 in your editor")
        )
        return None
    if (nul := text.find("\0")) >= 0:
        # Never sent to a model or parsed: a text file has no NUL; this one is binary or damaged.
        problems.append(
            Problem(
                path,
                "contains a NUL character, so it is not read (it is not plain text)",
                "remove the NUL characters in an editor, or save it as plain text",
                line=text.count("\n", 0, nul) + 1,
            )
        )
        return None
    return text


@dataclass(frozen=True)
class TextPart:
    """Some characters of a text file, from ``offset`` on, and whether the file goes on after them."""

    text: str
    offset: int
    more: bool
    file_bytes: int


def read_text_part(path: Path, offset: int, max_chars: int) -> TextPart:
    """At most ``max_chars`` characters of the UTF-8 file ``path`` from character ``offset`` on,
    counted in the text as it is read: a leading byte-order mark dropped, line breaks as ``\\n``
    (as the agent's loaders read files). A file of any size: what comes before ``offset`` is
    decoded and dropped a bounded piece at a time, so memory never holds more than the part.

    Raises:
        FileRefused: the file is missing or unreadable, not a regular file, binary (a NUL byte
            near its start), not UTF-8 text, or ``offset`` is past its end.
    """
    try:
        descriptor = os.open(path, _OPEN_FLAGS)
    except OSError as error:
        raise FileRefused(
            f"cannot read the file: {error.strerror}", "check that it exists and you may read it"
        ) from error
    try:
        status = os.fstat(descriptor)
        if kind := _not_regular(status.st_mode):
            raise _refuse_kind(kind)
        if b"\0" in os.read(descriptor, _BINARY_PROBE):
            raise FileRefused("is a binary file, so it is not read", "only text files can be read")
        os.lseek(descriptor, 0, os.SEEK_SET)
        # utf-8-sig drops a byte-order mark; newline=None reads \r\n and \r as \n.
        with open(descriptor, encoding="utf-8-sig", newline=None, closefd=False) as stream:
            skipped = 0
            while skipped < offset and (piece := stream.read(min(_SKIP_CHARS, offset - skipped))):
                skipped += len(piece)
            text = stream.read(max_chars)
            more = bool(stream.read(1))
    except UnicodeDecodeError as error:
        raise FileRefused(
            f"is not UTF-8 text ({error.reason}), so it is not read", "save it as UTF-8 in an editor"
        ) from error
    except OSError as error:
        raise FileRefused(
            f"cannot read the file: {error.strerror}", "check that it exists and you may read it"
        ) from error
    finally:
        os.close(descriptor)
    if skipped < offset or (offset and not text):
        raise FileRefused(
            f"offset {offset:,} is past the end of the file, which has {skipped:,} characters",
            f"ask for an offset below {skipped:,}",
        )
    return TextPart(text, offset, more, status.st_size)
