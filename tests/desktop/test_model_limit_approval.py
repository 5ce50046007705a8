"""A question about a sub-agent or a workflow on a model too small for it offers the same choice
as the desktop's other model warnings: run anyway (Allow once), or pick another model."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from agent_core.chat.events import ApprovalDecision, ApprovalRequest
from desktop.models.conversation import ConversationModel
from desktop.views.approval_widget import ApprovalWidget
from tests.support.desktop_driver import screenshot

SMALL = "local:smollm2-135m-instruct is small: it may not choose the tools the sub-agent needs."


def approval_cards() -> list[ApprovalWidget]:
    """A sub-agent asked about on a small model, and a destructive tool (a caution of another kind)."""

    async def run() -> ConversationModel:
        model = ConversationModel()
        model.apply(
            ApprovalRequest(
                "c1",
                "subagents",
                "summarizer",
                {"task": "summarize ideas.md"},
                caution=SMALL,
                every_call=True,
                model_limited=True,
            )
        )
        model.apply(
            ApprovalRequest("c2", "notes", "delete_note", {}, caution="Its server marks it destructive.")
        )
        return model

    model = asyncio.run(run())
    return [
        ApprovalWidget(model.entry(r)) for r in range(model.rowCount()) if model.entry(r).kind == "approval"
    ]


def test_pick_another_model_denies_the_run_and_asks_for_the_model_box(qtbot: QtBot) -> None:
    card, other = approval_cards()
    for widget in (card, other):
        qtbot.addWidget(widget)
    assert not card.pick_model.isHidden() and other.pick_model.isHidden()
    card.resize(640, card.sizeHint().height())
    screenshot(card, "approval_pick_another_model")
    decided: list[object] = []
    card.decided.connect(decided.append)
    with qtbot.waitSignal(card.model_pick_requested, timeout=1000):
        qtbot.mouseClick(card.pick_model, Qt.MouseButton.LeftButton)
    assert decided == [ApprovalDecision.DENY]


def test_a_workflow_asked_about_before_it_runs_is_asked_as_the_run_itself(qtbot: QtBot) -> None:
    async def run() -> ConversationModel:
        model = ConversationModel()
        model.apply(
            ApprovalRequest(
                "c1",
                "workflows",
                "triage",
                {"report": "Invoices are doubled"},
                origin="workflow triage",
                caution="scripted:classifier may not give each workflow step the output the next one needs.",
                every_call=True,
                model_limited=True,
            )
        )
        return model

    model = asyncio.run(run())
    card = ApprovalWidget(
        model.entry(next(r for r in range(model.rowCount()) if model.entry(r).kind == "approval"))
    )
    qtbot.addWidget(card)
    assert card.question.text() == "Run the workflow <b>triage</b>?"
    assert "wants to run" not in card.question.text() and not card.pick_model.isHidden()
