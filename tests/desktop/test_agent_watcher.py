"""The agent's files are watched for edits made in another program: rules, references, skills,
and also sub-agents and workflows (a workflow file added from outside was not seen until a manual
reload)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from agent_core.agent.agent import AGENT_FILE
from desktop.controllers.agent_watcher import AgentWatcher

WAIT_MS = 5_000


@pytest.fixture
def agent_root(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    for folder in ("rules", "references", "skills", "subagents", "workflows"):
        (root / folder).mkdir(parents=True)
    (root / AGENT_FILE).write_text("name: watched\n", encoding="utf-8")
    (root / "workflows" / "outline.yaml").write_text("states: []\n", encoding="utf-8")
    return root


@pytest.mark.parametrize(
    "path", ["subagents/summarizer.md", "workflows/release-notes.yaml", "rules/style.md"], ids=lambda p: p
)
def test_a_file_added_from_outside_is_noticed(qtbot: QtBot, agent_root: Path, path: str) -> None:
    watcher = AgentWatcher()
    watcher.watch(agent_root)
    with qtbot.waitSignal(watcher.changed, timeout=WAIT_MS):
        (agent_root / path).write_text("---\nname: x\n---\n", encoding="utf-8")


def test_a_workflow_edited_from_outside_is_noticed(qtbot: QtBot, agent_root: Path) -> None:
    watcher = AgentWatcher()
    watcher.watch(agent_root)
    edited = agent_root / "workflows" / "outline.yaml"
    with qtbot.waitSignal(watcher.changed, timeout=WAIT_MS):
        edited.write_text(edited.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
