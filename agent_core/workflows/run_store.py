"""Workflow runs in the app's database: a row per run, a record per state (written as it ends)."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from agent_core.paths import user_dirs
from agent_core.store.db import connect, store_error
from agent_core.workflows.records import RunStatus, StepRecord, WorkflowRunRecord

__all__ = ["WorkflowRunStore"]

_STEP = TypeAdapter(StepRecord)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


class WorkflowRunStore:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or user_dirs().database
        self._db = connect(self.path)
        self._lock = threading.RLock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, sql: str, values: tuple[Any, ...], doing: str) -> None:
        with self._lock:
            try:
                with self._db:
                    self._db.execute(sql, values)
            except sqlite3.Error as error:
                raise store_error(error, self.path, doing) from error

    def start(self, run_id: str, agent_path: str, workflow: str, given: Any, *, mocked: bool) -> None:
        self._write(
            "INSERT INTO workflow_runs(id, agent_path, workflow, status, input, mocked, started_at) "
            "VALUES (?, ?, ?, 'running', ?, ?, ?)",
            (run_id, agent_path, workflow, _json(given), int(mocked), time.time()),
            "could not save the workflow run",
        )

    def add_step(self, run_id: str, step: StepRecord) -> None:
        self._write(
            "INSERT OR REPLACE INTO workflow_steps(run_id, position, record) VALUES (?, ?, ?)",
            (run_id, step.position, _STEP.dump_json(step).decode()),
            "could not save a step of the workflow run",
        )

    def finish(self, run_id: str, status: RunStatus, store: dict[str, Any], error: str = "") -> None:
        self._write(
            "UPDATE workflow_runs SET status = ?, store = ?, error = ?, finished_at = ? WHERE id = ?",
            (status, _json(store), error or None, time.time(), run_id),
            "could not save the end of the workflow run",
        )

    def run(self, run_id: str) -> WorkflowRunRecord | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM workflow_runs WHERE id = ?", (run_id,)).fetchone()
            steps = self._db.execute(
                "SELECT record FROM workflow_steps WHERE run_id = ? ORDER BY position", (run_id,)
            ).fetchall()
        if row is None:
            return None
        return self._record(row, tuple(_STEP.validate_json(s[0]) for s in steps))

    def runs(self, agent_path: str | None = None, limit: int = 50) -> list[WorkflowRunRecord]:
        """The newest runs first (without their steps)."""
        with self._lock:
            if agent_path is None:
                rows = self._db.execute(
                    "SELECT * FROM workflow_runs ORDER BY started_at DESC LIMIT ?", (limit,)
                ).fetchall()
            else:
                rows = self._db.execute(
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
