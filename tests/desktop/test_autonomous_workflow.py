"""An Autonomous workflow (CodeMie's published template) in the window: the Workflows tab lists
its assistants, and the run view shows each delegation as a step (the assistant, the task it was
given, its result and what produced it). The steps model is tested without a view too."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from agent_core.context.provenance import Provenance
from agent_core.workflows.records import StepRecord
from desktop.app import DesktopApp
from desktop.models.workflow_steps import StepColumn, WorkflowStepsModel
from desktop.models.workflows import WorkflowsColumn
from tests.support.desktop_driver import WAIT_MS, screenshot, scripted
from tests.support.desktop_workflows import run_ended, select_workflow, workflows_tab
from tests.support.paths import FIXTURES

TEMPLATE = FIXTURES / "codemie_workflows" / "workflow_autonomous_template.yaml"
NAME = "onboarding"
BACKEND, UI = "backend_onboarder", "ui_onboarder"


@pytest.fixture
def agent_dir(agent_dir: Path) -> Path:
    (agent_dir / "workflows").mkdir()
    shutil.copyfile(TEMPLATE, agent_dir / "workflows" / f"{NAME}.yaml")
    (agent_dir / "workflows" / "other.yaml").write_text(
        "states:\n  - id: one\n    task: x\n    next: {state_id: end}\n", encoding="utf-8"
    )
    return agent_dir


def delegation(position: int, assistant: str, task: str, result: str, status: str = "done") -> StepRecord:
    return StepRecord(
        position, assistant, "assistant", {}, (), rendered_task=task, raw_output=result,
        next_state="supervisor", status=status,  # type: ignore[arg-type]
        error="the delegation needs review" if status == "needs_review" else "",
        provenance=Provenance("model", "scripted:x"), delegated=True,
    )  # fmt: skip


def test_the_steps_model_shows_a_delegation_as_the_assistant_delegated_to_and_back(qtbot: QtBot) -> None:
    model = WorkflowStepsModel()
    model.load(
        [delegation(0, BACKEND, "Backend steps", "make serve"), delegation(1, UI, "UI", "", "needs_review")]
    )
    cells = [
        [
            model.index(r, c).data()
            for c in (StepColumn.STATE, StepColumn.STATUS, StepColumn.PARSE, StepColumn.NEXT)
        ]
        for r in range(2)
    ]
    assert cells == [
        [BACKEND, "done", "delegated", "supervisor"],
        [UI, "needs_review", "delegated", "supervisor"],
    ]
    assert (
        model.index(1, StepColumn.STATUS).data(Qt.ItemDataRole.ToolTipRole) == "the delegation needs review"
    )
    assert model.step_at(0) is not None and model.step_at(0).rendered_task == "Backend steps"  # type: ignore[union-attr]


def test_the_run_view_shows_each_delegation_of_a_scripted_supervisor(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    provider = scripted(desktop)
    provider.enqueue_tool_call(f"subagents__{BACKEND}", {"task": "Explain how the backend is started"})
    provider.enqueue_reply("Run make serve in the backend folder.")
    provider.enqueue_tool_call(f"subagents__{UI}", {"task": "Explain how the UI is started"})
    provider.enqueue_reply("Run npm start in the ui folder.")
    provider.enqueue_reply("Backend: make serve; UI: npm start. FINISH")
    _, panel = workflows_tab(qtbot, desktop)
    row = next(r for r in range(panel.model.rowCount()) if panel.model.index(r, 0).data() == NAME)
    assert panel.model.index(row, WorkflowsColumn.STATES).data() == "supervisor, 2 assistants"
    select_workflow(qtbot, panel, NAME)
    assert panel.states_title.text() == f"Assistants of {NAME} (its supervisor delegates to them)"
    assert [panel.states_model.index(r, 0).data() for r in range(2)] == [BACKEND, UI]
    assert panel.states_model.index(0, 2).data() == "supervisor"

    panel.run_tab.allow_all.setChecked(True)
    assert panel.run_tab.form.raw is not None
    panel.run_tab.form.raw.setPlainText("How do I start CodeMie locally?")
    qtbot.mouseClick(panel.run_tab.run_button, Qt.MouseButton.LeftButton)
    dialog = panel.run_tab.last_run_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: run_ended(dialog), timeout=WAIT_MS)
    assert dialog.record is not None and dialog.record.status == "finished", dialog.record.error
    assert [dialog.model.index(r, StepColumn.STATE).data() for r in range(2)] == [BACKEND, UI]
    assert [dialog.model.index(r, StepColumn.PARSE).data() for r in range(2)] == ["delegated"] * 2

    dialog.select_row(1)
    details = dialog.details
    assert details.title.text().startswith(f"<b>{UI}</b> · delegated by the supervisor · assistant · done")
    assert (details.tabs.tabText(0), details.tabs.tabText(1)) == ("Task given", "Result")
    assert details.task.toPlainText() == "Explain how the UI is started"
    assert details.raw_output.toPlainText() == "Run npm start in the ui folder."
    assert details.produced.text() == "Produced by the model scripted:x, answered without using any tool"
    assert dialog.chat_button.isEnabled() and not dialog.rerun_button.isEnabled()
    assert json.loads(details.store_after.toPlainText())[UI] == "Run npm start in the ui folder."
    assert dialog.record.store["result"] == "Backend: make serve; UI: npm start."
    assert "the supervisor's answer: Backend: make serve; UI: npm start." in dialog.status.text()
    screenshot(dialog, "workflow_autonomous_run")
