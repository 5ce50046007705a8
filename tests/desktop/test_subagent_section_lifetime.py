"""View Context's sub-agent section listens to the chat's live runs, which outlive the dialog: a
run that changes after the dialog closed must not reach the deleted section (no "Internal C++
object already deleted" traceback on stderr)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QDialog, QVBoxLayout
from pytestqt.qtbot import QtBot

from agent_core.context.items import RequestContext, SelectionRun
from agent_core.subagents.runs import SubagentRun
from desktop.app import DesktopApp
from desktop.dialogs.subagent_section import SubagentHooks, SubagentSection
from desktop.models.subagent_runs import SubagentRunsModel
from tests.support.desktop_driver import WAIT_MS, idle, open_context, scripted, send

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


RESEARCHER = """---
name: researcher
description: Answers one focused question from the workspace documents
tools: Read, Grep
include: always
---
You are a research sub-agent. Answer in one sentence.
"""


@pytest.fixture
def agent_dir(agent_dir: Path) -> Path:
    (agent_dir / "subagents").mkdir()
    (agent_dir / "subagents" / "researcher.md").write_text(RESEARCHER, encoding="utf-8")
    return agent_dir


class Held:
    """A step of the scripted model held until the test lets it go (from the core's loop)."""

    def __init__(self) -> None:
        self.reached = False
        self.event: asyncio.Event | None = None

    async def wait(self) -> None:
        self.event = asyncio.Event()
        self.reached = True
        await self.event.wait()


def test_view_context_closed_while_a_sub_agent_runs_leaves_no_traceback_when_it_finishes(
    qtbot: QtBot, desktop: DesktopApp, raised: list[str], capfd: pytest.CaptureFixture[str]
) -> None:
    provider = scripted(desktop)
    provider.enqueue_reply("Hello.")
    send(qtbot, desktop, "hi")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    held = Held()
    provider.enqueue_tool_call(
        "subagents__researcher", {"task": "Which file holds the launch date?"}, "call-1"
    )
    provider.enqueue_reply(chunks=["notes.md says ", held, "Friday."])  # type: ignore[list-item]
    provider.enqueue_reply("The launch is on Friday.")
    # The first reply's View Context, opened while the sub-agent runs, lists the running run.
    dialog = open_context(qtbot, desktop)
    send(qtbot, desktop, "when is the launch? ask the researcher")
    qtbot.waitUntil(lambda: held.reached, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: dialog.subagents.model.rowCount() == 1, timeout=WAIT_MS)

    with qtbot.waitSignal(dialog.destroyed, timeout=WAIT_MS):
        dialog.close()  # deleted on close
    desktop.bridge.call_soon(lambda: held.event.set())  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    controller = desktop.window.current_controller()
    assert controller is not None
    qtbot.waitUntil(lambda: controller.subagent_runs.runs()[0].status == "finished", timeout=WAIT_MS)
    assert raised == []
    assert "already deleted" not in capfd.readouterr().err
