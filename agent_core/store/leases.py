"""One writer per chat: a lease row names the program writing to a chat (its host and pid) and
when it last wrote. A write to a chat whose lease another live program holds is refused, naming
it; a lease is taken over once its program has ended, or after LEASE_STALE_SECONDS without a write."""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from pathlib import Path

from agent_core.database.errors import StoreError
from agent_core.database.programs import process_running

__all__ = ["LEASE_STALE_SECONDS", "claim", "held_by_another", "this_program"]

LEASE_STALE_SECONDS = 600.0


def claim(db: sqlite3.Connection, session_id: str, holder: str, host: str) -> None:
    """Take or refresh this program's lease on the chat, inside a write transaction."""
    now = time.time()
    lease = db.execute("SELECT * FROM chat_leases WHERE session_id = ?", (session_id,)).fetchone()
    if lease is not None and held_by_another(lease, host, now):
        ago = max(0, round(now - lease["heartbeat"]))
        where = "" if lease["host"] == host else f" on {lease['host']}"
        raise StoreError(
            f"this chat is open for writing in {lease['holder']}{where} (last saved {ago} s ago), "
            "and only one program may write to a chat at a time: finish or close the chat there "
            "and try again, or start a new chat meanwhile (reading it, e.g. `contextdesk sessions "
            "show`, works now)",
            "in_use",
        )
    db.execute(
        "INSERT INTO chat_leases(session_id, holder, host, pid, heartbeat) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT(session_id) DO UPDATE SET holder = excluded.holder, host = excluded.host, "
        "pid = excluded.pid, heartbeat = excluded.heartbeat",
        (session_id, holder, host, os.getpid(), now),
    )


def held_by_another(lease: sqlite3.Row, host: str, now: float) -> bool:
    """Whether another live program holds ``lease`` (this process's own stores share it)."""
    if lease["host"] == host and lease["pid"] == os.getpid():
        return False
    if now - lease["heartbeat"] > LEASE_STALE_SECONDS:
        return False
    return lease["host"] != host or process_running(lease["pid"])


def this_program() -> str:
    """What this program is, for a lease's holder: "contextdesk chat", "ContextDesk desktop"..."""
    name = Path(sys.argv[0]).stem if sys.argv and sys.argv[0] else "python"
    if name in ("contextdesk", "main", "__main__", "launcher"):
        command = next((arg for arg in sys.argv[1:] if not arg.startswith("-")), None)
        return f"contextdesk {command}" if command else "ContextDesk desktop"
    return name
