"""The Workflows tab in a test: the two-state workflow ``write`` (outline, then draft), opening
the tab, choosing a workflow, and starting a run of ``write`` from its form."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from desktop.dialogs.workflow_run import WorkflowRunDialog
from desktop.views.manage_window import ManageWindow
from desktop.views.workflows_panel import WorkflowsPanel
from tests.support.desktop_driver import WAIT_MS, open_manager

__all__ = ["WRITE", "run_ended", "select_workflow", "start_write_run", "workflows_tab"]

WRITE = """\
description: Outline a topic, then draft a text from the outline.
inputs:
  topic: {type: string, description: What to write about}
  words: {type: integer, required: false, default: 30}
assistants:
  - id: writer
    system_prompt: You write short texts.
    tools: [{name: "workspace.*"}]  # an assistant gets only the agent tools its entry names
states:
  - id: outline
    assistant_id: writer
    task: 'Outline {{topic}}. Return JSON: {"points": ["..."]}'
    next: {state_id: draft}
  - id: draft
    assistant_id: writer
    task: Write about {{topic}} in {{words}} words, covering {{points}}.
    next: {state_id: end, output_key: text}
"""


def workflows_tab(qtbot: QtBot, desktop: DesktopApp) -> tuple[ManageWindow, WorkflowsPanel]:
    manager = open_manager(qtbot, desktop, "workflows")
    panel = manager.workflows
    qtbot.waitUntil(lambda: panel.model.rowCount() >= 2, timeout=WAIT_MS)
    return manager, panel


def select_workflow(qtbot: QtBot, panel: WorkflowsPanel, name: str) -> None:
    panel.select(name)
    qtbot.waitUntil(lambda: panel.editor.text.toPlainText() != "", timeout=WAIT_MS)


def run_ended(dialog: WorkflowRunDialog) -> bool:
    return dialog.record is not None and dialog.record.status != "running"


def start_write_run(qtbot: QtBot, panel: WorkflowsPanel) -> WorkflowRunDialog:
    select_workflow(qtbot, panel, "write")
    topic = panel.run_tab.form.fields["topic"]
    assert isinstance(topic, QLineEdit)
    topic.setText("green tea")
    qtbot.mouseClick(panel.run_tab.run_button, Qt.MouseButton.LeftButton)
    dialog = panel.run_tab.last_run_dialog
    assert dialog is not None
    return dialog
