"""Workflows in the window: the management tab lists them with their states, shows a saved file's
problems at their lines, builds the run form from the declared inputs; a run shows its steps live,
opens View Context on an assistant step, stops, asks before a gated state, and re-runs from a
state with the same rendered task. The model is the scripted provider (fakes only there)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QLineEdit, QPlainTextEdit
from pytestqt.qtbot import QtBot

from agent_core.agent.workflow_files.schema import WorkflowInput
from desktop.app import DesktopApp
from desktop.dialogs.workflow_run import WorkflowRunDialog
from desktop.models.workflow_steps import StepColumn
from desktop.views.workflow_input_form import InputFormError, WorkflowInputForm
from tests.support.desktop_driver import WAIT_MS, screenshot, scripted
from tests.support.desktop_workflows import WRITE, run_ended, select_workflow, start_write_run, workflows_tab

GATED = """\
states:
  - id: publish
    approve: true
    task: Publish the report
    next: {state_id: end, output_key: done}
"""

# The task on line 8 reads a variable nothing defines (the check points at that line).
UNDEFINED_IN_TASK_AT_LINE_8 = """\
inputs:
  topic: {type: string}
states:
  - id: outline
    task: Outline {{topic}}
    next: {state_id: draft, output_key: outline}
  - id: draft
    task: Draft {{topc}} from {{outline}}
    next: {state_id: end}
"""


@pytest.fixture
def agent_dir(agent_dir: Path) -> Path:
    (agent_dir / "workflows").mkdir()
    (agent_dir / "workflows" / "write.yaml").write_text(WRITE, encoding="utf-8")
    (agent_dir / "workflows" / "gated.yaml").write_text(GATED, encoding="utf-8")
    return agent_dir


class Gate:
    """Holds a scripted reply until the test opens it (from the GUI thread, through the bridge)."""

    def __init__(self) -> None:
        self.reached = False
        self.event: asyncio.Event | None = None

    async def wait(self) -> None:
        self.event = asyncio.Event()
        self.reached = True
        await self.event.wait()


def test_the_workflows_tab_lists_each_workflow_with_its_states(qtbot: QtBot, desktop: DesktopApp) -> None:
    manager, panel = workflows_tab(qtbot, desktop)
    names = [panel.model.index(r, 0).data() for r in range(panel.model.rowCount())]
    assert names == ["gated", "write"]
    select_workflow(qtbot, panel, "write")
    states = [
        [panel.states_model.index(r, c).data() for c in range(3)]
        for r in range(panel.states_model.rowCount())
    ]
    assert states == [["outline", "assistant writer", "draft"], ["draft", "assistant writer", "end"]]
    assert panel.editor.text.toPlainText() == WRITE
    assert panel.editor.summary.text() == "No problems in the saved file."
    screenshot(manager, "workflows_tab")


def test_a_saved_workflow_with_an_undefined_variable_shows_the_problem_at_the_line_that_reads_it(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path
) -> None:
    _, panel = workflows_tab(qtbot, desktop)
    panel.new_name.setText("outline")
    qtbot.mouseClick(panel.new_button, Qt.MouseButton.LeftButton)
    assert "topic" in panel.editor.text.toPlainText()  # the template
    panel.editor.text.setPlainText(UNDEFINED_IN_TASK_AT_LINE_8)
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: panel.editor.problems_model.rowCount() > 0, timeout=WAIT_MS)
    assert (agent_dir / "workflows" / "outline.yaml").read_text(
        encoding="utf-8"
    ) == UNDEFINED_IN_TASK_AT_LINE_8
    [problem] = panel.editor.problems_model.problems()
    assert problem.line == 8 and "'topc' is undefined" in problem.message
    assert panel.editor.highlighted_lines() == [8]
    assert "1 error" in panel.editor.summary.text()
    assert panel.model.row_of(agent_dir / "workflows" / "outline.yaml") is not None
    # Checked once the agent reloaded: the label no longer says it is being checked.
    qtbot.waitUntil(lambda: panel.file_label.text() == "workflows/outline.yaml (saved)", timeout=WAIT_MS)

    index = panel.editor.problems_model.index(0, 0)
    panel.editor.problems.clicked.emit(index)
    assert panel.editor.text.textCursor().blockNumber() == 7  # line 8, counted from 0

    # With errors it does not run: the Run tab says why.
    qtbot.mouseClick(panel.run_tab.run_button, Qt.MouseButton.LeftButton)
    assert panel.run_tab.last_run_dialog is None
    assert panel.run_tab.run_status.text().startswith("Not started: outline has 1 error (see Edit)")

    # Fixed and checked again before saving: the problem goes.
    panel.editor.text.setPlainText(UNDEFINED_IN_TASK_AT_LINE_8.replace("topc", "topic"))
    qtbot.mouseClick(panel.check_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.editor.problems_model.rowCount() == 0, timeout=WAIT_MS)
    assert panel.editor.summary.text() == "No problems in the text as it is now."
    assert panel.editor.highlighted_lines() == []


def test_deleting_a_workflow_asks_for_a_second_click(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path
) -> None:
    _, panel = workflows_tab(qtbot, desktop)
    select_workflow(qtbot, panel, "gated")
    qtbot.mouseClick(panel.delete_button, Qt.MouseButton.LeftButton)
    assert (agent_dir / "workflows" / "gated.yaml").exists()
    assert "Click again" in panel.delete_button.text()
    qtbot.mouseClick(panel.delete_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.model.rowCount() == 1, timeout=WAIT_MS)
    assert not (agent_dir / "workflows" / "gated.yaml").exists()


def test_the_input_form_has_a_typed_field_per_input_with_defaults_and_required_marks(qtbot: QtBot) -> None:
    form = WorkflowInputForm()
    qtbot.addWidget(form)
    form.set_inputs(
        {
            "topic": WorkflowInput(type="string"),
            "words": WorkflowInput(type="integer", required=False, default=30),
            "ratio": WorkflowInput(type="number", required=False),
            "draft": WorkflowInput(type="boolean", default=True),
            "options": WorkflowInput(type="object", default={"tone": "calm"}),
            "files": WorkflowInput(type="array", required=False),
        }
    )
    fields = form.fields
    assert isinstance(fields["topic"], QLineEdit) and isinstance(fields["draft"], QCheckBox)
    assert isinstance(fields["options"], QPlainTextEdit) and isinstance(fields["files"], QPlainTextEdit)
    assert fields["words"].text() == "30"  # type: ignore[union-attr]
    assert fields["draft"].isChecked()  # type: ignore[union-attr]
    assert json.loads(fields["options"].toPlainText()) == {"tone": "calm"}  # type: ignore[union-attr]
    assert {name: label.text() for name, label in form.labels.items()} == {
        "topic": "topic *",
        "words": "words",
        "ratio": "ratio",
        "draft": "draft",
        "options": "options",
        "files": "files",
    }

    with pytest.raises(InputFormError, match="'topic' is required"):
        form.value()
    fields["topic"].setText("tea")  # type: ignore[union-attr]
    fields["words"].setText("many")  # type: ignore[union-attr]
    with pytest.raises(InputFormError, match="'words' must be a whole number"):
        form.value()
    fields["words"].setText("40")  # type: ignore[union-attr]
    fields["options"].setPlainText("{tone: calm")  # type: ignore[union-attr]
    with pytest.raises(InputFormError, match="'options' is not valid JSON"):
        form.value()
    fields["options"].setPlainText('["calm"]')  # type: ignore[union-attr]
    with pytest.raises(InputFormError, match="'options' must be a JSON object"):
        form.value()
    fields["options"].setPlainText('{"tone": "warm"}')  # type: ignore[union-attr]
    fields["ratio"].setText("0.5")  # type: ignore[union-attr]
    assert form.value() == {
        "topic": "tea",
        "words": 40,
        "ratio": 0.5,
        "draft": True,
        "options": {"tone": "warm"},
    }


def test_without_declared_inputs_the_form_takes_raw_json_or_text(qtbot: QtBot) -> None:
    form = WorkflowInputForm()
    qtbot.addWidget(form)
    form.set_inputs({})
    assert form.raw is not None
    form.raw.setPlainText('{"title": "Q3 report"}')
    assert form.value() == {"title": "Q3 report"}
    form.raw.setPlainText('{"title": ')
    with pytest.raises(InputFormError, match="not valid JSON"):
        form.value()
    form.raw.setPlainText("just some text")
    assert form.value() == "just some text"


def test_a_run_with_a_missing_required_input_does_not_start_and_says_why(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    _, panel = workflows_tab(qtbot, desktop)
    select_workflow(qtbot, panel, "write")
    qtbot.mouseClick(panel.run_tab.run_button, Qt.MouseButton.LeftButton)
    assert panel.run_tab.last_run_dialog is None
    assert panel.run_tab.run_status.text() == "Not started: 'topic' is required: fill it in (string)."


def test_a_run_shows_its_steps_live_then_view_context_and_a_rerun_with_the_same_task(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    provider = scripted(desktop)
    gate = Gate()
    provider.enqueue_reply(chunks=['{"points": ', gate, '["leaves", "water"]}'])  # type: ignore[list-item]
    provider.enqueue_reply("Green tea is brewed from leaves and water.")
    _, panel = workflows_tab(qtbot, desktop)
    dialog = start_write_run(qtbot, panel)

    # Live: the first state shows as running while its model answers.
    qtbot.waitUntil(lambda: gate.reached and dialog.model.rowCount() == 1, timeout=WAIT_MS)
    assert dialog.model.index(0, StepColumn.STATUS).data() == "running"
    assert not dialog.stop_button.isHidden()
    desktop.bridge.call_soon(lambda: gate.event.set())  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: run_ended(dialog), timeout=WAIT_MS)

    assert dialog.record is not None and dialog.record.status == "finished"
    assert dialog.record.store["text"] == "Green tea is brewed from leaves and water."
    assert [dialog.model.index(r, StepColumn.STATE).data() for r in range(2)] == ["outline", "draft"]
    assert dialog.stop_button.isHidden()
    dialog.select_row(1)
    draft = dialog.selected_step()
    assert draft is not None
    assert draft.rendered_task == 'Write about green tea in 30 words, covering ["leaves", "water"].'
    assert dialog.details.task.toPlainText() == draft.rendered_task
    assert (
        dialog.details.produced.text() == "Produced by the model scripted:x, answered without using any tool"
    )
    diff = dialog.details.diff_model
    assert [diff.index(0, c).data() for c in (0, 1, 4)] == [
        "text",
        "added",
        "Green tea is brewed from leaves and water.",
    ]
    screenshot(dialog, "workflow_run")

    # View Context on the assistant step: the request its own chat made.
    assert dialog.context_button.isEnabled()
    qtbot.mouseClick(dialog.context_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.last_context_dialog is not None, timeout=WAIT_MS)
    context_dialog = dialog.last_context_dialog
    assert draft.request_context is not None
    assert context_dialog.context == draft.request_context
    for item_type, column in context_dialog.columns.items():
        assert column.items_model.rowCount() == len(draft.request_context.of_type(item_type))
    assert context_dialog.columns["tool"].items_model.rowCount() == 4  # the workspace server's tools
    screenshot(context_dialog, "workflow_step_view_context")
    context_dialog.close()

    # Its chat opens read-only, as a sub-agent's does.
    qtbot.mouseClick(dialog.chat_button, Qt.MouseButton.LeftButton)
    transcript = desktop.window.dialogs.last_transcript_dialog
    assert transcript is not None and transcript.session_id == draft.child_session_id
    qtbot.waitUntil(lambda: transcript.model.rowCount() == 2, timeout=WAIT_MS)
    transcript.close()

    # Re-run from the draft state: a new run whose rendered task is the same, byte for byte.
    provider.enqueue_reply("Green tea, again.")
    qtbot.mouseClick(dialog.rerun_button, Qt.MouseButton.LeftButton)
    rerun = panel.run_tab.last_run_dialog
    assert rerun is not None and rerun is not dialog
    qtbot.waitUntil(lambda: run_ended(rerun), timeout=WAIT_MS)
    assert rerun.record is not None and rerun.record.id != dialog.record.id
    assert [s.state_id for s in rerun.record.steps] == ["draft"]
    assert rerun.record.steps[0].rendered_task == draft.rendered_task
    assert rerun.record.store["text"] == "Green tea, again."

    # Both runs are listed, newest first, and a stored one opens with its steps.
    qtbot.waitUntil(lambda: panel.run_tab.runs_model.rowCount() == 2, timeout=WAIT_MS)
    assert panel.run_tab.runs_model.run_at(0).id == rerun.record.id  # type: ignore[union-attr]
    stored = panel.run_tab.open_run(1)
    assert stored is not None
    qtbot.waitUntil(lambda: stored.model.rowCount() == 2, timeout=WAIT_MS)
    assert stored.record is not None and stored.record.id == dialog.record.id


def test_stop_cancels_a_running_workflow(qtbot: QtBot, desktop: DesktopApp) -> None:
    provider = scripted(desktop)
    gate = Gate()
    provider.enqueue_reply(chunks=['{"points": ', gate, "[]}"])  # type: ignore[list-item]
    _, panel = workflows_tab(qtbot, desktop)
    dialog = start_write_run(qtbot, panel)
    qtbot.waitUntil(lambda: gate.reached and dialog.model.rowCount() == 1, timeout=WAIT_MS)
    qtbot.mouseClick(dialog.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: run_ended(dialog), timeout=WAIT_MS)
    assert dialog.record is not None and dialog.record.status == "cancelled"
    assert dialog.model.index(0, StepColumn.STATUS).data() == "cancelled"


def test_a_gated_state_asks_in_the_run_view_before_it_runs(qtbot: QtBot, desktop: DesktopApp) -> None:
    _, panel = workflows_tab(qtbot, desktop)
    select_workflow(qtbot, panel, "gated")
    assert panel.run_tab.form.raw is not None
    panel.run_tab.form.raw.setPlainText('{"title": "the Q3 report"}')
    qtbot.mouseClick(panel.run_tab.run_button, Qt.MouseButton.LeftButton)
    dialog = panel.run_tab.last_run_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: len(dialog.approval_widgets) == 1, timeout=WAIT_MS)
    [approval] = dialog.approval_widgets
    assert "asks before it runs the state <b>publish</b>" in approval.question.text()
    assert approval.arguments.text() == "Publish the report"
    qtbot.mouseClick(approval.deny, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: run_ended(dialog), timeout=WAIT_MS)
    assert dialog.record is not None and dialog.record.status == "stopped"
    assert "did not let state 'publish' run" in dialog.record.error
    assert approval.outcome.text() == "Denied by you"


def test_a_run_answered_by_mock_outputs_asks_no_model_and_is_marked_so(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    _, panel = workflows_tab(qtbot, desktop)
    select_workflow(qtbot, panel, "write")
    panel.run_tab.form.fields["topic"].setText("tea")  # type: ignore[union-attr]
    panel.run_tab.use_mocks.setChecked(True)
    panel.run_tab.mock_outputs.setPlainText("[{'state_id': 'outline'}]")
    qtbot.mouseClick(panel.run_tab.run_button, Qt.MouseButton.LeftButton)
    assert panel.run_tab.last_run_dialog is None
    assert panel.run_tab.run_status.text().startswith("Not started: The mock outputs are not valid JSON")

    mocks = [
        {"state_id": "outline", "output": {"points": ["leaves"]}},
        {"state_id": "draft", "output": "Tea is made from leaves."},
    ]
    panel.run_tab.mock_outputs.setPlainText(json.dumps(mocks))
    qtbot.mouseClick(panel.run_tab.run_button, Qt.MouseButton.LeftButton)
    dialog = panel.run_tab.last_run_dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: run_ended(dialog), timeout=WAIT_MS)
    assert dialog.record is not None and dialog.record.mocked and dialog.record.status == "finished"
    assert dialog.record.store["text"] == "Tea is made from leaves."
    assert "mock outputs" in dialog.heading.text()
    dialog.select_row(0)
    assert dialog.details.parsed_output.toPlainText() == json.dumps({"points": ["leaves"]}, indent=2)
    assert dialog.details.produced.text() == "Produced by a mock output, no model or tool ran"
    assert not dialog.context_button.isEnabled()  # no model was asked: there is no request to show


def test_a_tool_call_of_an_assistant_state_is_approved_in_the_run_view_as_in_a_chat(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    qtbot.waitUntil(lambda: len(desktop.host.tools.tools()) > 0, timeout=WAIT_MS)
    provider = scripted(desktop)
    provider.enqueue_tool_call("workspace__read_file", {"path": "notes.md"})
    provider.enqueue_reply('{"points": ["launch on Friday"]}')
    provider.enqueue_reply("The launch is on Friday.")
    _, panel = workflows_tab(qtbot, desktop)
    dialog = start_write_run(qtbot, panel)
    qtbot.waitUntil(lambda: len(dialog.approval_widgets) == 1, timeout=WAIT_MS)
    [approval] = dialog.approval_widgets
    assert "wants to run <b>workspace.read_file</b>" in approval.question.text()
    assert "path" in approval.arguments.text() and "notes.md" in approval.arguments.text()
    assert json.loads(approval.arguments.toolTip()) == {"path": "notes.md"}  # the exact call
    qtbot.mouseClick(approval.allow_once, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: run_ended(dialog), timeout=WAIT_MS)
    assert dialog.record is not None and dialog.record.status == "finished"
    assert dialog.record.store["points"] == ["launch on Friday"]
    assert approval.outcome.text() == "Allowed once"


def test_a_stored_run_opens_from_the_list_and_reruns_from_a_state(qtbot: QtBot, desktop: DesktopApp) -> None:
    provider = scripted(desktop)
    provider.enqueue_reply('{"points": ["leaves"]}')
    provider.enqueue_reply("First text.")
    _, panel = workflows_tab(qtbot, desktop)
    first = start_write_run(qtbot, panel)
    qtbot.waitUntil(lambda: run_ended(first), timeout=WAIT_MS)
    first.close()
    qtbot.waitUntil(lambda: panel.run_tab.runs_model.rowCount() == 1, timeout=WAIT_MS)

    stored = panel.run_tab.open_run(0)
    assert stored is not None
    qtbot.waitUntil(lambda: stored.model.rowCount() == 2, timeout=WAIT_MS)
    assert stored.stop_button.isHidden() and "finished" in stored.heading.text()
    stored.select_row(1)
    old = stored.selected_step()
    assert old is not None
    provider.enqueue_reply("Second text.")
    qtbot.mouseClick(stored.rerun_button, Qt.MouseButton.LeftButton)
    rerun = panel.run_tab.last_run_dialog
    assert rerun is not None and rerun is not stored
    qtbot.waitUntil(lambda: run_ended(rerun), timeout=WAIT_MS)
    assert rerun.record is not None and rerun.record.store["text"] == "Second text."
    assert rerun.record.steps[0].rendered_task == old.rendered_task


def test_closing_the_run_view_stops_the_run_and_the_list_shows_it_cancelled(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    provider = scripted(desktop)
    gate = Gate()
    provider.enqueue_reply(chunks=['{"points": ', gate, "[]}"])  # type: ignore[list-item]
    _, panel = workflows_tab(qtbot, desktop)
    dialog = start_write_run(qtbot, panel)
    qtbot.waitUntil(lambda: gate.reached, timeout=WAIT_MS)
    dialog.close()
    qtbot.waitUntil(lambda: panel.run_tab.runs_model.rowCount() == 1, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: panel.run_tab.runs_model.run_at(0).status == "cancelled", timeout=WAIT_MS)  # type: ignore[union-attr]
    assert panel.run_tab.run_status.text() == "The last run of write: cancelled."


def test_slash_run_in_a_chat_shows_the_run_and_view_context_opens_its_run_view(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    from tests.support.desktop_driver import idle, last_reply, open_context, send

    provider = scripted(desktop)
    provider.enqueue_reply('{"points": ["taste", "history"]}')
    provider.enqueue_reply("Green tea tastes grassy and has a long history.")
    send(qtbot, desktop, '/run write {"topic": "green tea"}')
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    reply = last_reply(desktop)
    assert reply.entry is not None
    assert "Workflow **write** finished after 2 steps" in reply.entry.text
    assert "Green tea tastes grassy" in reply.entry.text
    dialog = open_context(qtbot, desktop)
    section = dialog.workflows
    assert section.isVisibleTo(dialog) and section.model.rowCount() == 1
    assert [section.model.index(0, c).data() for c in (0, 1, 2)] == ["write", "finished", "2"]
    screenshot(dialog, "workflow-in-view-context")
    qtbot.mouseClick(section.open_button, Qt.MouseButton.LeftButton)
    run_view = desktop.window.dialogs.last_workflow_run_dialog
    assert isinstance(run_view, WorkflowRunDialog)
    qtbot.waitUntil(lambda: run_view.model.rowCount() == 2, timeout=WAIT_MS)
    assert [run_view.model.step_at(r).state_id for r in range(2)] == ["outline", "draft"]  # type: ignore[union-attr]
    run_view.close()
    dialog.close()
