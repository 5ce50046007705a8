"""Workflow runs in the app's database: a row per run, a record per state (written as it ends).

A run's row names the program running it (host and pid); opening the store marks the runs left
'running' by a program that has ended (closed mid-run, crashed, killed) as 'interrupted'. The
store shares the database file's one lock with every other store on it in this process
(``agent_core.database.base``).
"""

from __future__ import annotations

import json
import logging
import os
import socket
import sqlite3
import time
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from agent_core.agent.workflow_files.schema import HARD_MAX_TIMEOUT_SECONDS
from agent_core.database.base import SqliteStore
from agent_core.database.errors import StoreError
from agent_core.database.programs import process_running
from agent_core.workflows.records import RunStatus, StepRecord, WorkflowRunRecord

__all__ = ["INTERRUPTED", "WorkflowRunStore"]

logger = logging.getLogger(__name__)

_STEP = TypeAdapter(StepRecord)

INTERRUPTED = (
    "interrupted: the program running it ended (closed, crashed or killed) before it finished; "
    "run it again, or re-run it from a state it finished (Re-run from this state in the desktop, "
    "or `contextdesk workflow rerun {run_id} --from STATE`)"
)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


class WorkflowRunStore(SqliteStore):
    def __init__(self, path: Path | None = None) -> None:
        super().__init__(path)
        self._host = socket.gethostname()
        try:
            self.recover_interrupted()
        except StoreError as error:  # a read-only database can still be read
            logger.warning("could not mark interrupted workflow runs in %s: %s", self.path, error)

    def start(self, run_id: str, agent_path: str, workflow: str, given: Any, *, mocked: bool) -> None:
        self._change(
            "INSERT INTO workflow_runs(id, agent_path, workflow, status, input, mocked, started_at, host, pid) "
            "VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?)",
            (run_id, agent_path, workflow, _json(given), int(mocked), time.time(), self._host, os.getpid()),
            "could not save the workflow run",
        )

    def add_step(self, run_id: str, step: StepRecord, encoded: bytes | None = None) -> None:
        """Save ``step`` (``encoded``: its JSON, when the caller measured it already)."""
        self._change(
            "INSERT OR REPLACE INTO workflow_steps(run_id, position, record) VALUES (?, ?, ?)",
            (run_id, step.position, (encoded or _STEP.dump_json(step)).decode()),
            "could not save a step of the workflow run",
        )

    def finish(self, run_id: str, status: RunStatus, store: dict[str, Any], error: str = "") -> None:
        self._change(
            "UPDATE workflow_runs SET status = ?, store = ?, error = ?, finished_at = ? WHERE id = ?",
            (status, _json(store), error or None, time.time(), run_id),
            "could not save the end of the workflow run",
        )

    def recover_interrupted(self) -> int:
        """Mark the runs left 'running' by a program that has ended as 'interrupted'; returns how
        many. A run of a live program (this one too) is left alone.

        Raises:
            StoreError: the database cannot be written.
        """
        now = time.time()
        rows = self._select(
            "SELECT id, host, pid, started_at FROM workflow_runs WHERE status = 'running'",
            (),
            "could not read the workflow runs",
        )
        ended = [row["id"] for row in rows if self._ended(row, now)]
        for run_id in ended:
            self._change(
                "UPDATE workflow_runs SET status = 'interrupted', error = ?, finished_at = ? "
                "WHERE id = ? AND status = 'running'",
                (INTERRUPTED.format(run_id=run_id), now, run_id),
                "could not mark an interrupted workflow run",
            )
        return len(ended)

    def _ended(self, row: sqlite3.Row, now: float) -> bool:
        """Whether the program that ran ``row`` has ended."""
        if row["host"] == self._host and row["pid"] == os.getpid():
            return False
        if now - row["started_at"] > HARD_MAX_TIMEOUT_SECONDS + 60:
            return True  # no run lives longer than the hard cap on limits.timeoutSeconds
        if row["host"] is None:
            return True  # started by an older ContextDesk, which named no program
        # On another computer (a shared folder) only time tells; here the process does.
        return row["host"] == self._host and not process_running(row["pid"])

    def run(self, run_id: str) -> WorkflowRunRecord | None:
        with self._reading("could not read the workflow run") as db:
            row = db.execute("SELECT * FROM workflow_runs WHERE id = ?", (run_id,)).fetchone()
            steps = db.execute(
                "SELECT record FROM workflow_steps WHERE run_id = ? ORDER BY position", (run_id,)
            ).fetchall()
        if row is None:
            return None
        return self._record(row, tuple(_STEP.validate_json(s[0]) for s in steps))

    def runs(self, agent_path: str | None = None, limit: int = 50) -> list[WorkflowRunRecord]:
        """The newest runs first (without their steps)."""
        with self._reading("could not read the workflow runs") as db:
            if agent_path is None:
                rows = db.execute(
                    "SELECT * FROM workflow_runs ORDER BY started_at DESC LIMIT ?", (limit,)
                ).fetchall()
            else:
                rows = db.execute(
                    "SELECT * FROM workflow_runs WHERE agent_path = ? ORDER BY started_at DESC LIMIT ?",
                    (agent_path, limit),
                ).fetchall()
        return [self._record(row, ()) for row in rows]

    @staticmethod
    def _record(row: sqlite3.Row, steps: tuple[StepRecord, ...]) -> WorkflowRunRecord:
        return WorkflowRunRecord(
            id=row["id"],
            agent_path=row["agent_path"],
            workflow=row["workflow"],
            status=row["status"],
            input=json.loads(row["input"]),
            store=json.loads(row["store"]),
            started_at=row["started_at"],
            finished_at=row["finished_at"],
            mocked=bool(row["mocked"]),
            error=row["error"] or "",
            steps=steps,
        )
