"""View Context's sub-agent section listens to the chat's live runs, which outlive the dialog: a
run that changes after the dialog closed must not reach the deleted section (no "Internal C++
object already deleted" traceback on stderr)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from types import TracebackType
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QDialog, QVBoxLayout
from pytestqt.qtbot import QtBot

from agent_core.context.items import RequestContext, SelectionRun
from agent_core.subagents.runs import SubagentRun
from desktop.dialogs.subagent_section import SubagentHooks, SubagentSection
from desktop.models.subagent_runs import SubagentRunsModel

RUN = SubagentRun(
    "call-1", "researcher", "researcher", "Which file holds the launch date?", "task", "child-1"
)


@pytest.fixture
def raised() -> Iterator[list[str]]:
    """Every exception Qt's signal delivery reports instead of raising (through the exception
    hook or the unraisable hook), as text."""
    seen: list[str] = []
    old_except, old_unraisable = sys.excepthook, sys.unraisablehook

    def on_exception(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        seen.append(f"{kind.__name__}: {error}")

    def on_unraisable(info: Any) -> None:
        seen.append(f"{type(info.exc_value).__name__}: {info.exc_value}")

    sys.excepthook, sys.unraisablehook = on_exception, on_unraisable
    try:
        yield seen
    finally:
        sys.excepthook, sys.unraisablehook = old_except, old_unraisable


def test_a_run_changing_after_view_context_closed_reaches_no_deleted_widget(
    qtbot: QtBot, raised: list[str], capfd: pytest.CaptureFixture[str]
) -> None:
    live = SubagentRunsModel()
    live.set_runs([RUN])
    dialog = QDialog()
    section = SubagentSection(
        RequestContext(
            items=(), model="scripted:x", selection=SelectionRun(top_k=1, top_n=1, include_score=0.5)
        ),
        SubagentHooks(live, cancel=lambda _call: None, open_chat=lambda _id, _title: None),
        dialog,
    )
    QVBoxLayout(dialog).addWidget(section)
    dialog.show()
    assert section.model.rowCount() == 1  # the running run is listed while the dialog is open

    with qtbot.waitSignal(dialog.destroyed, timeout=5000):
        dialog.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    # The sub-agent goes on after the dialog closed, and then finishes.
    live.set_runs([SubagentRun(**{**RUN.__dict__, "turns": 2})])
    live.dataChanged.emit(live.index(0, 0), live.index(0, 5))
    live.set_runs([SubagentRun(**{**RUN.__dict__, "status": "finished"})])

    assert raised == []
    assert "already deleted" not in capfd.readouterr().err
