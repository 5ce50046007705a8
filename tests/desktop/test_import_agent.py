"""File ▸ Import agent… through the real dialog: a file or a folder (a project's Cursor rules,
.claude agents and skills and MCP config in one go), what was found shown before anything is
written, a new agent folder typed by name, and Open agent folder offering to import a project."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QMessageBox
from pytestqt.qtbot import QtBot

from agent_core.agent.agent import AGENT_FILE
from agent_core.agent.scaffold import create_agent
from desktop.app import DesktopApp
from desktop.dialogs.import_agent import AGENTS_FOLDER, ImportAgentDialog, suggested_target, target_from_text
from desktop.dialogs.import_report import ImportReportDialog
from tests.support.desktop_driver import WAIT_MS
from tests.support.import_projects import project_with_every_part


@pytest.fixture(autouse=True)
def close_import_windows() -> Iterator[None]:
    """Close the dialogs a test leaves open: a later test looks for its own by kind."""
    yield
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, ImportAgentDialog | ImportReportDialog) and widget.isVisible():
            widget.close()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


def test_the_suggested_agent_folder_is_named_after_the_project_and_never_taken(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    (project / ".cursor" / "rules").mkdir(parents=True)
    (project / ".mcp.json").write_text("{}")
    home = tmp_path / "home"
    assert suggested_target(project, home) == home / AGENTS_FOLDER / "shop"
    assert suggested_target(project / ".cursor" / "rules", home) == home / AGENTS_FOLDER / "shop"
    assert suggested_target(project / ".mcp.json", home) == home / AGENTS_FOLDER / "shop"
    (home / AGENTS_FOLDER / "shop").mkdir(parents=True)
    assert suggested_target(project, home) == home / AGENTS_FOLDER / "shop-2"


def test_a_bare_name_as_the_target_is_a_new_folder_where_new_agents_go(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert target_from_text("  Webshop helper ", home) == home / AGENTS_FOLDER / "Webshop helper"
    assert target_from_text(str(tmp_path / "agents" / "shop"), home) == tmp_path / "agents" / "shop"
    assert target_from_text("", home) is None
    assert target_from_text("a/b", home) == Path(
        "a/b"
    )  # a relative path is refused by the check, not guessed


def _dialog(desktop: DesktopApp) -> ImportAgentDialog:
    dialog = desktop.window.agents_menu.last_import_dialog
    assert dialog is not None
    return dialog


def test_a_project_folder_is_imported_in_one_go_into_a_new_folder_typed_by_name(
    qtbot: QtBot, desktop: DesktopApp, fixtures_dir: Path, tmp_path: Path, home: Path
) -> None:
    project = project_with_every_part(fixtures_dir, tmp_path / "shop")
    dialog = desktop.window.agents_menu.import_agent()
    assert not dialog.import_button.isEnabled()  # nothing chosen yet
    dialog.source.setText(str(project))
    qtbot.waitUntil(lambda: "Agent Skills" in dialog.found.text(), timeout=WAIT_MS)
    found = dialog.found.text()
    assert "Cursor rules" in found and "Claude Code sub-agents" in found and "MCP config" in found
    assert dialog.target.text() == str(home / AGENTS_FOLDER / "shop")  # suggested, not yet created
    assert "A new agent: this folder is created" in dialog.target_note.text()

    target = tmp_path / "agents" / "shop-assistant"  # a new name, in a folder that does not exist yet
    dialog.target.setText(str(target))
    assert dialog.import_button.isEnabled()
    with qtbot.waitSignal(dialog.imported, timeout=WAIT_MS):
        qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    assert (target / AGENT_FILE).is_file()
    assert (target / "skills" / "create-plan" / "SKILL.md").is_file()
    assert (target / "subagents" / "planner.md").is_file()
    assert any((target / "rules").glob("*.md"))
    qtbot.waitUntil(
        lambda: desktop.host.agent is not None and desktop.host.agent.root == target, timeout=WAIT_MS
    )
    reports = [
        w for w in QApplication.topLevelWidgets() if isinstance(w, ImportReportDialog) and w.isVisible()
    ]
    assert len(reports) == 1 and "imported" in reports[0].summary.text()  # its whole report, shown


def test_a_folder_of_other_files_or_inside_an_agent_is_refused_before_importing(
    qtbot: QtBot, desktop: DesktopApp, fixtures_dir: Path, tmp_path: Path, agent_dir: Path, home: Path
) -> None:
    dialog = desktop.window.agents_menu.import_agent(source=fixtures_dir / "importers" / "cursor-project")
    qtbot.waitUntil(lambda: "Cursor rules" in dialog.found.text(), timeout=WAIT_MS)
    documents = tmp_path / "documents"
    documents.mkdir()
    (documents / "letter.txt").write_text("Dear Sam")
    dialog.target.setText(str(documents))
    assert "already holds files and is not an agent folder" in dialog.target_note.text()
    assert not dialog.import_button.isEnabled()
    dialog.target.setText(str(agent_dir / "rules" / "nested"))
    assert "inside the agent folder" in dialog.target_note.text()
    assert not dialog.import_button.isEnabled()
    dialog.target.setText(str(agent_dir))  # the open agent: the import adds to it
    assert "Adds to this agent" in dialog.target_note.text()
    assert dialog.import_button.isEnabled()
    assert list(documents.iterdir()) == [documents / "letter.txt"]


def test_nothing_to_import_is_said_and_the_import_stays_off(
    qtbot: QtBot, desktop: DesktopApp, tmp_path: Path, home: Path
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "notes.txt").write_text("shopping list")
    dialog = desktop.window.agents_menu.import_agent(source=plain)
    qtbot.waitUntil(lambda: "Nothing ContextDesk imports is here" in dialog.found.text(), timeout=WAIT_MS)
    dialog.target.setText(str(tmp_path / "new"))
    assert not dialog.import_button.isEnabled()
    dialog.source.setText(str(tmp_path / "missing"))
    qtbot.waitUntil(lambda: "does not exist" in dialog.found.text(), timeout=WAIT_MS)


def test_opening_a_project_without_an_agent_offers_to_import_it(
    qtbot: QtBot,
    desktop: DesktopApp,
    fixtures_dir: Path,
    tmp_path: Path,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _parent, _title, text: warnings.append(text))
    project = project_with_every_part(fixtures_dir, tmp_path / "shop")
    desktop.window.agents_menu.open_path(project)
    qtbot.waitUntil(lambda: desktop.window.agents_menu.last_import_dialog is not None, timeout=WAIT_MS)
    dialog = _dialog(desktop)
    assert dialog.source.text() == str(project)
    assert f"{project} is not an agent folder" in dialog.intro.text()
    qtbot.waitUntil(lambda: "Cursor rules" in dialog.found.text(), timeout=WAIT_MS)
    assert dialog.target.text() == str(home / AGENTS_FOLDER / "shop")
    assert not warnings

    plain = tmp_path / "plain"
    plain.mkdir()
    desktop.window.agents_menu.open_path(plain)
    qtbot.waitUntil(lambda: bool(warnings), timeout=WAIT_MS)
    assert "has no agent.yaml and nothing ContextDesk imports" in warnings[0]


def test_an_agent_folder_still_opens_at_once(qtbot: QtBot, desktop: DesktopApp, tmp_path: Path) -> None:
    other = create_agent(tmp_path / "other", name="Other Agent").root
    desktop.window.agents_menu.open_path(other)
    qtbot.waitUntil(lambda: desktop.window.windowTitle().startswith("Other Agent"), timeout=WAIT_MS)
    assert desktop.window.agents_menu.last_import_dialog is None


def test_new_agent_makes_its_own_folder_in_the_folder_picked_unless_that_one_is_empty(
    qtbot: QtBot, desktop: DesktopApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    projects = tmp_path / "projects"
    projects.mkdir()
    (projects / "todo.txt").write_text("ship it")
    picked = iter([projects, tmp_path / "empty"])
    (tmp_path / "empty").mkdir()
    monkeypatch.setattr(QInputDialog, "getText", lambda *_a, **_k: ("Support Bot", True))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *_a: str(next(picked)))
    desktop.window.agents_menu.new_agent()
    qtbot.waitUntil(
        lambda: desktop.host.agent is not None and desktop.host.agent.root == projects / "support-bot",
        timeout=WAIT_MS,
    )
    assert desktop.host.agent is not None and desktop.host.agent.config.name == "Support Bot"
    assert (projects / "todo.txt").read_text() == "ship it"
    desktop.window.agents_menu.new_agent()
    qtbot.waitUntil(
        lambda: desktop.host.agent is not None and desktop.host.agent.root == tmp_path / "empty",
        timeout=WAIT_MS,
    )


def test_a_source_that_cannot_be_read_says_why_and_writes_nothing(
    qtbot: QtBot, desktop: DesktopApp, fixtures_dir: Path, tmp_path: Path, home: Path
) -> None:
    broken = fixtures_dir / "import_corpus" / "broken" / "mcp.json"  # a real config with a typo
    dialog = desktop.window.agents_menu.import_agent(source=broken)
    qtbot.waitUntil(lambda: dialog.found.text().startswith(f"cannot read {broken}"), timeout=WAIT_MS)
    dialog.target.setText(str(tmp_path / "new-agent"))
    assert not dialog.import_button.isEnabled()
    assert not (tmp_path / "new-agent").exists()


def test_an_import_that_fails_keeps_the_dialog_and_what_was_chosen(
    qtbot: QtBot, desktop: DesktopApp, fixtures_dir: Path, tmp_path: Path, home: Path
) -> None:
    source = tmp_path / "shop"
    project_with_every_part(fixtures_dir, source)
    dialog = desktop.window.agents_menu.import_agent(source=source)
    qtbot.waitUntil(lambda: "Cursor rules" in dialog.found.text(), timeout=WAIT_MS)
    target = tmp_path / "new-agent"
    dialog.target.setText(str(target))
    target.mkdir()
    (target / "letter.txt").write_text("Dear Sam")  # filled after it was checked: checked again
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(dialog.problem.isVisible, timeout=WAIT_MS)
    assert "Nothing was imported" in dialog.problem.text() and "already holds files" in dialog.problem.text()
    assert dialog.isVisible() and dialog.import_button.text() == "Import"
    assert dialog.source.text() == str(source) and dialog.target.text() == str(target)
    assert [p.name for p in target.iterdir()] == ["letter.txt"]
