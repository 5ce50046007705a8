"""The sub-agents table fed a loaded agent directly, without any view: a row a sub-agent with what
it is allowed, and each file found again by its path (how the file editor keeps its selection)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QAbstractItemModelTester
from pytestqt.qtbot import QtBot

from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.agent.subagent_files.files import save_subagent, template_for
from desktop.models.subagents import SubagentsModel


def test_each_sub_agent_is_a_row_found_again_by_its_file(qtbot: QtBot, tmp_path: Path) -> None:
    root = create_agent(tmp_path / "agent").root
    save_subagent(root, "researcher", template_for("researcher"))
    save_subagent(
        root, "writer", template_for("writer").replace("tools: [", "tools: [workspace.write_file, ")
    )
    agent = load_agent(root)
    model = SubagentsModel()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.set_subagents(sorted(agent.subagents.values(), key=lambda s: s.name))

    assert model.rowCount() == 2
    first = [model.index(0, c).data() for c in range(model.columnCount())]
    assert first[:3] == ["researcher", "isolated", agent.subagents["researcher"].model]
    assert first[3] == "workspace.read_file, workspace.list_files, workspace.search_files"
    assert first[4] == "10 turns · 100,000 tokens · 300 s"
    assert model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole).startswith("What it does")

    writer = root / "subagents" / "writer.md"
    path = model.path_at(1)
    assert model.row_of(writer) == 1 and path is not None and path.resolve() == writer.resolve()
    assert model.row_of(root / "subagents" / "gone.md") is None and model.path_at(2) is None
