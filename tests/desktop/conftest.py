"""Desktop tests: Qt offscreen and a test agent answered by the scripted provider (drivers and
screenshots: tests/support/desktop_driver.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

# Two offscreen screens: a roomy one (the primary, where screenshots are taken) and a small one
# for the tests of windows that must fit the screen. The plugin's default is a single 800x800.
if os.environ.get("QT_QPA_PLATFORM", "offscreen") == "offscreen":
    os.environ["QT_QPA_PLATFORM"] = (
        f"offscreen:configfile={Path(__file__).with_name('offscreen_screens.json')}"
    )

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from agent_core.agent.scaffold import create_agent
from desktop.app import DesktopApp, create_app
from desktop.mcp_apps.engine import prepare_webengine
from desktop.theme import THEME_VARIABLE, apply_theme
from tests.support.desktop_driver import WAIT_MS
from tests.support.fake_api import FakeApi

# The MCP Apps views' URL scheme and WebEngine's switches, before pytest-qt makes the QApplication.
prepare_webengine()

AGENT_YAML = """\
name: Test Assistant
description: An agent for the desktop tests
systemPrompt: You are a test assistant.
chat:
  model: scripted:x
  maxChatTurns: 5
providers:
  scripted: {{}}
mcpServers:
  workspace:
    type: internal
    tool: workspace
    options:
      root: {root}
    toolDefaults:
      include: always
      permissionRequired: true
"""

RULES = {
    "clear-answers": ("always", 100, "Keep answers short, direct and honest", "Lead with the answer."),
    "pirate": ("manual", 50, "Talk like a pirate", "Speak like a pirate, arr."),
    "code-answers": (
        "agent",
        300,
        "How to answer programming questions and write, review or debug code",
        "When the user asks about Python code, show a short example in a fenced code block.",
    ),
}
REFERENCES = {
    "release-notes": ("manual", 20, "What changed in each release", "Version 2 adds dark mode."),
    "python-style": (
        "agent",
        10,
        "Python coding conventions: naming, typing, tests",
        "Python functions use snake_case names and type hints. Tests use pytest.",
    ),
}


def write_item(
    root: Path, folder: str, name: str, include: str, priority: int, description: str, text: str
) -> None:
    (root / folder / f"{name}.md").write_text(
        f"---\ndescription: '{description}'\npriorityLevel: {priority}\ninclude: {include}\n---\n\n{text}\n",
        encoding="utf-8",
    )


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    create_agent(root)
    for folder in ("rules", "references"):
        for path in (root / folder).glob("*.md"):
            path.unlink()
    shutil.rmtree(root / "skills", ignore_errors=True)  # the default agent's example skill
    files = tmp_path / "files"
    files.mkdir()
    (files / "notes.md").write_text("The launch is on Friday.\n", encoding="utf-8")
    (root / "agent.yaml").write_text(AGENT_YAML.format(root=files), encoding="utf-8")
    for name, (include, priority, description, text) in RULES.items():
        write_item(root, "rules", name, include, priority, description, text)
    for name, (include, priority, description, text) in REFERENCES.items():
        write_item(root, "references", name, include, priority, description, text)
    return root


@pytest.fixture
def desktop(qtbot: QtBot, agent_dir: Path) -> Iterator[DesktopApp]:
    create_app()
    app = DesktopApp()
    app.start(agent_dir)
    qtbot.waitUntil(lambda: app.window.current_controller() is not None, timeout=WAIT_MS)
    yield app
    app.close()


@pytest.fixture
def local_server() -> Iterator[FakeApi]:
    """An OpenAI-compatible server on 127.0.0.1, like LM Studio or Ollama (queue its replies)."""
    api = FakeApi()
    yield api
    api.close()


@pytest.fixture(params=["light", "dark"])
def theme(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each theme in turn, as CONTEXTDESK_THEME sets it when the app starts: ask for it before
    ``desktop``, and name screenshots after it, so a change can be looked at in both."""
    monkeypatch.setenv(THEME_VARIABLE, request.param)
    yield request.param
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    apply_theme(app, Qt.ColorScheme.Light)
