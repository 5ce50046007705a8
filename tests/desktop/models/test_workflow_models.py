"""The workflow tables fed core values directly, without any view: a run's steps (live and stored),
one step's store changes, the agent's workflow files and one file's problems."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QAbstractItemModelTester
from pytestqt.qtbot import QtBot

from agent_core.agent.items import Problem
from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.context.items import TokenUsage
from agent_core.workflows.events import StepStarted
from agent_core.workflows.records import StepRecord
from desktop.models.workflow_steps import (
    StepColumn,
    StoreDiffColumn,
    StoreDiffModel,
    WorkflowStepsModel,
    store_changes,
)
from desktop.models.workflows import ProblemsModel, WorkflowsColumn, WorkflowsModel, workflow_entries


def _step(state_id: str, position: int = 0, **changes: object) -> StepRecord:
    values: dict[str, object] = {
        "position": position,
        "state_id": state_id,
        "kind": "assistant",
        "store_before": {"topic": "tea", "draft": "old"},
        "history_before": (),
        "rendered_task": f"Do {state_id}",
        "raw_output": '{"points": ["a"]}',
        "parsed_output": {"points": ["a"]},
        "parse_path": "json",
        "store_after": {"topic": "tea", "points": ["a"], "draft": "new"},
        "added": {"points": 3},
        "changed": {"draft": 1},
        "next_state": "draft",
        "usage": TokenUsage(input_tokens=120, output_tokens=30),
        "elapsed_seconds": 1.25,
    }
    values.update(changes)
    return StepRecord(**values)  # type: ignore[arg-type]


def _row(model: WorkflowStepsModel, row: int) -> list[str]:
    return [model.index(row, c).data() for c in range(model.columnCount())]


def test_live_steps_appear_as_running_then_are_filled_in_when_they_finish(qtbot: QtBot) -> None:
    model = WorkflowStepsModel()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    changed: list[int] = []
    model.dataChanged.connect(lambda top, _bottom: changed.append(top.row()))

    model.step_started(StepStarted("run1", "outline"))
    assert _row(model, 0) == ["outline", "", "running", "", "", "", ""]
    assert model.step_at(0) is None

    row = model.step_finished(_step("outline"))
    assert row == 0 and changed == [0]
    assert _row(model, 0) == ["outline", "", "done", "json", "draft", "1.25 s", "150"]
    assert model.index(0, 0).data(WorkflowStepsModel.STEP_ROLE).state_id == "outline"


def test_iterations_are_one_row_each_with_their_item_and_a_failure_shows_its_error(qtbot: QtBot) -> None:
    model = WorkflowStepsModel()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    for position, item in enumerate(("a.py", "b.py")):
        model.step_started(StepStarted("run1", "read", item))
        model.step_finished(_step("read", position, item=item))
    model.step_started(StepStarted("run1", "judge"))
    model.step_finished(_step("judge", 2, status="failed", error="state 'judge': the output does not match"))

    assert model.rowCount() == 3
    assert [model.index(r, StepColumn.ITEM).data() for r in range(3)] == ["a.py", "b.py", ""]
    assert model.index(2, StepColumn.STATUS).data() == "failed"
    assert "does not match" in model.index(2, 0).data(Qt.ItemDataRole.ToolTipRole)


def test_a_run_that_ends_marks_the_state_still_running_cancelled(qtbot: QtBot) -> None:
    model = WorkflowStepsModel()
    model.step_started(StepStarted("run1", "outline"))
    model.mark_stopped()
    assert model.index(0, StepColumn.STATUS).data() == "cancelled"


def test_a_stored_run_loads_all_its_steps_at_once(qtbot: QtBot) -> None:
    model = WorkflowStepsModel()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.load([_step("outline"), _step("draft", 1, next_state="end")])
    assert [model.index(r, StepColumn.NEXT).data() for r in range(2)] == ["draft", "end"]


def test_the_store_diff_lists_added_changed_and_removed_keys_with_tokens_and_values(qtbot: QtBot) -> None:
    step = _step("outline", removed={"old": 2}, store_before={"topic": "tea", "draft": "old", "old": 1})
    assert [(c.key, c.change, c.tokens) for c in store_changes(step)] == [
        ("points", "added", 3),
        ("draft", "changed", 1),
        ("old", "removed", 2),
    ]
    model = StoreDiffModel()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.set_step(step)
    rows = [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(model.rowCount())]
    assert rows == [
        ["points", "added", "3", "", '["a"]'],
        ["draft", "changed", "1", "old", "new"],
        ["old", "removed", "2", "1", ""],
    ]
    assert model.index(0, StoreDiffColumn.AFTER).data(Qt.ItemDataRole.ToolTipRole) == '["a"]'


GOOD = """\
inputs:
  topic: {type: string}
states:
  - id: outline
    task: Outline {{topic}}
    next: {state_id: end}
"""
BROKEN = "states: [\n"


def test_the_workflows_model_lists_valid_files_and_those_left_out_for_their_errors(
    qtbot: QtBot, tmp_path: Path
) -> None:
    root = tmp_path / "agent"
    create_agent(root)
    (root / "workflows").mkdir()
    (root / "workflows" / "good.yaml").write_text(GOOD, encoding="utf-8")
    (root / "workflows" / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    agent = load_agent(root)

    entries = workflow_entries(agent)
    assert [(e.name, e.workflow is not None) for e in entries] == [("broken", False), ("good", True)]
    model = WorkflowsModel()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.set_entries(entries)
    assert model.index(1, WorkflowsColumn.STATES).data() == "1"
    assert model.index(1, WorkflowsColumn.INPUTS).data() == "topic"
    assert model.index(0, WorkflowsColumn.STATES).data() == "—"
    assert "left out" in model.index(0, WorkflowsColumn.PROBLEMS).data()
    assert model.row_of(root / "workflows" / "good.yaml") == 1


def test_a_problem_row_says_where_and_what_and_gives_its_line(qtbot: QtBot, tmp_path: Path) -> None:
    model = ProblemsModel()
    model.set_problems([Problem(tmp_path / "w.yaml", "'topc' is undefined", "declare it", 7)])
    assert model.index(0, 0).data() == "line 7 · error: 'topc' is undefined — declare it"
    assert model.index(0, 0).data(ProblemsModel.LINE_ROLE) == 7
