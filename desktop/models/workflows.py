"""The agent's workflows as tables: the files (valid ones and those left out for their problems),
the states of one, and the problems of one file by line."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from agent_core.agent.agent import Agent
from agent_core.agent.items import Problem
from agent_core.agent.workflow_files.check import targets
from agent_core.agent.workflow_files.loader import WORKFLOWS_FOLDER, Workflow
from agent_core.agent.workflow_files.schema import WorkflowFile, WorkflowNext, WorkflowState
from desktop.models._table import FileTableModel, RowListModel, RowTableModel

__all__ = [
    "ProblemsModel",
    "WorkflowEntry",
    "WorkflowStatesModel",
    "WorkflowsColumn",
    "WorkflowsModel",
    "describe_next",
    "shown_states",
    "state_kind",
    "workflow_entries",
]

SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class WorkflowEntry:
    """One file under ``workflows/``: its workflow when it loaded, and its problems' counts."""

    name: str
    path: Path
    workflow: Workflow | None  # None: the file has errors and is left out of the agent
    errors: int = 0
    warnings: int = 0


def workflow_entries(agent: Agent) -> list[WorkflowEntry]:
    """Every workflow file of ``agent``, by name: those that loaded and those left out."""
    folder = (agent.root / WORKFLOWS_FOLDER).resolve()
    counts: dict[Path, list[Problem]] = {}
    for problem in agent.problems:
        path = problem.path.resolve()
        if path.parent == folder and path.suffix in SUFFIXES:
            counts.setdefault(path, []).append(problem)
    entries: dict[Path, WorkflowEntry] = {}
    for workflow in agent.workflows.values():
        path = workflow.path.resolve()
        entries[path] = _entry(workflow.name, workflow.path, workflow, counts.get(path, []))
    for path, problems in counts.items():
        if path not in entries:
            entries[path] = _entry(path.stem, path, None, problems)
    return sorted(entries.values(), key=lambda e: e.name.lower())


def _entry(name: str, path: Path, workflow: Workflow | None, problems: list[Problem]) -> WorkflowEntry:
    errors = sum(1 for p in problems if p.severity == "error")
    return WorkflowEntry(name, path, workflow, errors, len(problems) - errors)


class WorkflowsColumn(IntEnum):
    NAME = 0
    STATES = 1
    INPUTS = 2
    PROBLEMS = 3


class WorkflowsModel(FileTableModel[WorkflowEntry]):
    HEADERS = ("Workflow", "States", "Inputs", "Problems")

    def set_entries(self, entries: list[WorkflowEntry]) -> None:
        self._reset_rows(entries)

    def entry_at(self, row: int) -> WorkflowEntry | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def file_of(self, row: WorkflowEntry) -> Path:
        return row.path

    def cell_data(self, row: WorkflowEntry, column: int, role: int) -> Any:
        spec = row.workflow.spec if row.workflow is not None else None
        if role == Qt.ItemDataRole.DisplayRole:
            if column == WorkflowsColumn.NAME:
                return row.name
            if column == WorkflowsColumn.STATES:
                if spec is not None and spec.autonomous:
                    return f"supervisor, {len(spec.assistants)} assistants"
                return str(len(spec.states)) if spec else "—"
            if column == WorkflowsColumn.INPUTS:
                return (", ".join(spec.inputs) or "none") if spec else "—"
            if column == WorkflowsColumn.PROBLEMS:
                return _problem_count(row)
        if role == Qt.ItemDataRole.ToolTipRole:
            if spec is None:
                return f"{row.path.name} has errors and is left out: select it to see them at their lines"
            return spec.description or None
        return None


def _problem_count(entry: WorkflowEntry) -> str:
    parts = []
    if entry.errors:
        parts.append(f"{entry.errors} error{'s' if entry.errors > 1 else ''}")
    if entry.warnings:
        parts.append(f"{entry.warnings} warning{'s' if entry.warnings > 1 else ''}")
    if entry.workflow is None:
        parts.append("left out")
    return ", ".join(parts) or "none"


def shown_states(spec: WorkflowFile) -> list[WorkflowState]:
    """The rows of the states table: the states, or for an Autonomous workflow its assistants,
    each one the supervisor delegates to and hears back from."""
    if not spec.autonomous:
        return list(spec.states)
    return [
        WorkflowState(
            id=assistant.id,
            assistant_id=assistant.id,
            task=assistant.system_prompt or "",
            next=WorkflowNext(state_id="supervisor"),
        )
        for assistant in spec.assistants
    ]


def state_kind(state: WorkflowState) -> str:
    if state.tool_id:
        return f"tool {state.tool_id}"
    if state.custom_node_id:
        return f"custom node {state.custom_node_id}"
    return f"assistant {state.assistant_id or '(this agent)'}"


def describe_next(state: WorkflowState) -> str:
    """Where a state goes: "draft", "then a / otherwise b", "each item of files → read"."""
    next_ = state.next
    if next_.condition is not None:
        where = f"if {next_.condition.expression}: {next_.condition.then}, else {next_.condition.otherwise}"
    elif next_.switch is not None:
        where = "switch: " + " / ".join(targets(next_))
    else:
        where = ", ".join(targets(next_))
    if next_.iter_key:
        where = f"each item of {next_.iter_key} → {where}"
    return where


class WorkflowStatesModel(RowTableModel[WorkflowState]):
    HEADERS = ("State", "Kind", "Next")

    def set_states(self, states: list[WorkflowState]) -> None:
        self._reset_rows(states)

    def cell_data(self, row: WorkflowState, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            marks = " (asks first)" if row.approve or row.interrupt_before else ""
            return (row.id + marks, state_kind(row), describe_next(row))[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.task or None
        return None


class ProblemsModel(RowListModel[Problem]):
    """One file's problems; ``LINE_ROLE`` gives the line a click moves the cursor to."""

    LINE_ROLE = Qt.ItemDataRole.UserRole + 1

    def set_problems(self, problems: list[Problem]) -> None:
        self._reset_rows(problems)

    def problems(self) -> list[Problem]:
        return list(self._rows)

    def row_data(self, row: Problem, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            where = f"line {row.line}" if row.line else "file"
            fix = f" — {row.fix}" if row.fix else ""
            return f"{where} · {row.severity}: {row.message}{fix}"
        if role == self.LINE_ROLE:
            return row.line
        return None
