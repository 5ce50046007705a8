"""The skill-and-script flow in the desktop, end to end: a message selects a real skill (real MiniLM
selection), the scripted model loads it with ``skills.load`` and runs its script with
``skills.run_script``; the approval card shows the exact command line and what is isolated, the
user allows it once, the script really runs in the workspace, and the reply's View Context shows
the three steps: the skill selected (its catalogue line), loaded, and the script's call and result.

Run with ``QT_QPA_PLATFORM=xcb`` on an X display (Xvfb) to drive a real window; the screenshots go
to artifacts/screenshots (and, on X, a grab of the whole screen beside each)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp, create_app
from desktop.models.context_items import Column, Role
from desktop.models.request_skills import OFFERED_THEN_LOADED
from desktop.models.skills_model import SkillRole
from desktop.views.approval_widget import ApprovalWidget
from desktop.views.tool_call_widget import ToolCallWidget
from tests.support.desktop_driver import SCREENSHOTS, WAIT_MS, idle, open_context, screenshot, scripted, send
from tests.support.paths import FIXTURES

pytestmark = pytest.mark.slow  # the real embedding model chooses the skill

SKILL = FIXTURES / "skill_script_flow" / "a11y-audit"
OTHERS = FIXTURES / "desktop_skills"
STYLES = ".body { color: #333333; background-color: #ffffff; }\n"
MESSAGE = "Audit the accessibility of my page: is the color contrast in styles.css WCAG AA compliant?"
RUN = {"name": "a11y-audit", "script": "scripts/contrast_checker.py", "args": ["--batch", "styles.css"]}


@pytest.fixture
def app(qtbot: QtBot, agent_dir: Path) -> Iterator[DesktopApp]:
    shutil.copytree(SKILL, agent_dir / "skills" / "a11y-audit")
    for name in ("create-plan", "file-conversion"):
        shutil.copytree(OTHERS / name, agent_dir / "skills" / name)
    (agent_dir.parent / "files" / "styles.css").write_text(STYLES, encoding="utf-8")
    create_app()
    desktop = DesktopApp()
    desktop.start(agent_dir)
    qtbot.waitUntil(lambda: desktop.window.current_controller() is not None, timeout=WAIT_MS)
    yield desktop
    desktop.close()


def shot(widget: QWidget, name: str) -> None:
    """The widget as it paints, and on a real X display the whole screen as the user sees it."""
    screenshot(widget, name)
    display, grabber = os.environ.get("DISPLAY"), shutil.which("import")
    if QApplication.platformName() == "xcb" and display and grabber:
        path = SCREENSHOTS / f"{name}_screen.png"
        subprocess.run([grabber, "-window", "root", str(path)], check=True, timeout=30)


def test_a_selected_skill_is_loaded_and_its_script_runs_after_approval(qtbot: QtBot, app: DesktopApp) -> None:
    workspace = app.host.workspace
    assert workspace is not None
    workspace.selector.start_loading()
    qtbot.waitUntil(workspace.selector.model_ready, timeout=60_000)
    qtbot.waitUntil(
        lambda: (
            {("skills", "load"), ("skills", "run_script")}
            <= {(t.server, t.name) for t in app.host.tools.tools()}
        ),
        timeout=WAIT_MS,
    )
    provider = scripted(app)
    provider.enqueue_tool_call("skills__load", {"name": "a11y-audit"}, id="load-1")
    provider.enqueue_tool_call("skills__run_script", RUN, id="run-1")
    provider.enqueue_reply("The text of `.body` (#333333 on #ffffff) passes WCAG AA and AAA: 12.63:1.")
    send(qtbot, app, MESSAGE)

    # The first request carried the skill's catalogue line only: selection offered it.
    qtbot.waitUntil(lambda: len(provider.requests) >= 1, timeout=WAIT_MS)
    first = "\n".join(str(m.content) for m in provider.requests[0].messages)
    assert "- a11y-audit: Accessibility audit skill" in first
    assert "# Accessibility Audit" not in first  # not its body

    view = app.window.current_view()
    assert view is not None
    qtbot.waitUntil(
        lambda: any(isinstance(w, ApprovalWidget) for w in view.conversation.widgets()), timeout=WAIT_MS
    )
    card = next(w for w in view.conversation.widgets() if isinstance(w, ApprovalWidget))
    question = card.question.text()
    script = app.host.agent.root / "skills/a11y-audit/scripts/contrast_checker.py"  # type: ignore[union-attr]
    assert "skills.run_script" in question
    assert f"{script} --batch styles.css" in question  # the exact command line
    assert ("Sandboxed (bubblewrap)" in question) or ("NOT sandboxed" in question)
    assert "with no API keys in its environment" in question
    assert card.allow_chat.isHidden() and not card.allow_once.isHidden()
    shot(app.window, "skill_run_script_approval")
    qtbot.mouseClick(card.allow_once, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: idle(app), timeout=WAIT_MS)

    calls = [w for w in view.conversation.widgets() if isinstance(w, ToolCallWidget)]
    records = [w.entry.tool_call for w in calls if w.entry is not None and w.entry.tool_call is not None]
    assert [(r.server, r.tool, r.is_error) for r in records] == [
        ("skills", "load", False),
        ("skills", "run_script", False),
    ]
    run = records[1].result
    assert "Selector: .body" in run and "Summary: 1/1 pairs pass AA Normal Text" in run  # it really ran
    assert "exit code 0" in run.lower() or "exit 0" in run.lower()
    for widget in calls:
        widget.toggle.setChecked(True)
    shot(app.window, "skill_reply_tool_calls")

    dialog = open_context(qtbot, app)
    column = dialog.columns["skill"]
    proxy = column.items_view.proxy
    rows = {
        proxy.index(r, Column.NAME).data(): (
            proxy.index(r, Column.MODE).data(),
            proxy.index(r, 0).data(Role.STATE),
            proxy.index(r, 0).data(Role.SCORE),
            proxy.index(r, 0).data(Role.DESCRIPTION),
        )
        for r in range(proxy.rowCount())
    }
    mode, state, score, why = rows["a11y-audit"]
    assert (mode, state) == ("Agent", "loaded")
    assert score is not None and score > 0  # selection chose it for the message
    assert why.startswith(OFFERED_THEN_LOADED)  # selected, then loaded
    assert column.saved.text().startswith("Skills: ") and "saved)" in column.saved.text()
    tools = dialog.tool_calls.model
    assert [tools.index(r, 0).data() for r in range(tools.rowCount())] == ["skills.load", "skills.run_script"]
    assert "exit code 0" in tools.index(1, 0).data(Qt.ItemDataRole.ToolTipRole)  # the result's start
    shot(dialog, "skill_view_context")
    dialog.close()

    # The Skills section marks it as loaded in this chat, and offers to remove it.
    skills = app.window.context_panel.skills
    assert skills.select("a11y-audit")
    qtbot.waitUntil(lambda: skills.view.currentIndex().data(SkillRole.IN_CHAT) == "loaded", timeout=WAIT_MS)
    assert skills.chat_button.text() == "Remove from chat"
    shot(app.window, "skill_section_in_chat")
