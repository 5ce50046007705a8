"""Whether the program that wrote a row (a chat's lease, a workflow run) still runs."""

from __future__ import annotations

import os
import sys

__all__ = ["process_running"]


def process_running(pid: int) -> bool:
    """Whether process ``pid`` on this host still runs (assumed so where that cannot be asked)."""
    if sys.platform == "win32":
        return True  # os.kill would end it there; the lease goes stale by time instead
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
