"""Ending everything a stdio server started, not only the server (POSIX).

A server runs in a session of its own, so its pid is its process group, which the processes it
starts join. At shutdown the whole group is sent SIGTERM and, after a short grace, SIGKILL, even
when the server itself has already exited (its helpers may still run). On Windows the SDK's Job
Object does the same, so there is nothing to do here.

The grace is an event, not a sleep: the group's processes share the server's stderr pipe, and its
reader sees the end of the pipe when the last of them exits (a process that closed its stderr is
not waited for; it gets SIGKILL with the others).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from contextlib import suppress

__all__ = ["GROUP_GRACE_SECONDS", "end_process_group"]

logger = logging.getLogger(__name__)

GROUP_GRACE_SECONDS = 2.0  # between SIGTERM and SIGKILL for what the server left running


async def end_process_group(
    pgid: int, all_exited: Callable[[float], Awaitable[bool]], grace: float = GROUP_GRACE_SECONDS
) -> None:
    """SIGTERM to the group, then SIGKILL to what is left once ``all_exited`` (waiting at most
    ``grace`` seconds) returns. Nothing to do on Windows (the SDK's Job Object) or for a group
    already gone."""
    if sys.platform == "win32" or pgid == os.getpgrp():  # never our own group
        return
    if not _signal_group(pgid, signal.SIGTERM):
        return
    if await all_exited(grace):
        logger.debug("process group %d ended on SIGTERM", pgid)
    if _signal_group(pgid, signal.SIGKILL):
        logger.debug("process group %d: SIGKILL to what was left", pgid)


def _signal_group(pgid: int, signal_number: int) -> bool:
    """Whether the group still had a process to signal."""
    try:
        os.killpg(pgid, signal_number)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member we may not signal (or a zombie, on macOS): nothing more to do
        with suppress(OSError):
            logger.debug("process group %d: no permission to signal some of it", pgid)
        return False
    return True
