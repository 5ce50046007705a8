"""View Context's header names the floor its near-misses' "needed" refers to: minScore beside
includeScore, and the raise a question about how things are gets; every "needed" is a bar the
item's score did not reach."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from tests.support.desktop_driver import WAIT_MS, idle, open_context, scripted, send


def test_the_header_and_each_needed_score_speak_of_the_same_floors(qtbot: QtBot, desktop: DesktopApp) -> None:
    workspace = desktop.host.workspace
    assert workspace is not None
    workspace.selector.start_loading()
    qtbot.waitUntil(workspace.selector.model_ready, timeout=60_000)
    for message, header in (
        ("How should I name my Python functions and write code?", "minScore 0.45, includeScore 0.70"),
        (
            "What is the difference between a rule and a reference in general?",
            "minScore 0.45 (+0.10 for a question: 0.55), includeScore 0.70",
        ),
    ):
        scripted(desktop).enqueue_reply("ok")
        count = desktop.window.current_controller().conversation.rowCount()  # type: ignore[union-attr]
        send(qtbot, desktop, message)
        qtbot.waitUntil(
            lambda count=count: (
                idle(desktop) and desktop.window.current_controller().conversation.rowCount() > count + 1
            ),  # type: ignore[union-attr]
            timeout=WAIT_MS,
        )
        dialog = open_context(qtbot, desktop)
        assert header in dialog.summary.text()
        for miss in dialog.context.near_misses:
            if miss.needed is not None:
                assert miss.score is not None and miss.score < miss.needed, miss
                assert miss.reason in ("below_floor", "below_question_floor", "below_clause_floor")
        dialog.close()
        desktop.window.dialogs.last_context_dialog = None
