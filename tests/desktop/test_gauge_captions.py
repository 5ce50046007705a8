"""The context gauge's words when no request of the chat has figures yet."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from agent_core.context.items import RequestContext, SelectionRun, WorkflowRunLink
from desktop.views.token_bar import ContextGauge


def test_a_chat_whose_only_reply_ran_a_workflow_says_when_the_gauge_fills(qtbot: QtBot) -> None:
    gauge = ContextGauge()
    qtbot.addWidget(gauge)
    ran = WorkflowRunLink(call_id="c1", workflow="short-text", run_id="r1", status="needs_review", steps=1)
    gauge.set_context(RequestContext((), "local:x", SelectionRun(20, 5, 0.7), workflow_runs=(ran,)))
    assert gauge.level == "empty"
    assert gauge.caption.text().startswith("Fills after the model's first reply (a workflow run sends")
    gauge.set_context(RequestContext((), "local:x", SelectionRun(20, 5, 0.7)))
    assert gauge.caption.text() == "The last reply has no token counts."
