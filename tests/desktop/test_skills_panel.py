"""The Skills section of the context panel in the running app: the agent's real skills listed and
searched, include mode and enabled written to agent.yaml (the agent reloads), SKILL.md viewed,
a folder imported with its whole report shown, and the empty state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox
from pytestqt.qtbot import QtBot

from agent_core.agent.schema import IncludeMode
from desktop.app import DesktopApp
from desktop.dialogs.import_report import ImportReportDialog
from desktop.dialogs.skill_file import SkillFileDialog
from tests.support.agent_files import write
from tests.support.desktop_driver import WAIT_MS, screenshot
from tests.support.skills_section import SKILL_FIXTURES as FIXTURES
from tests.support.skills_section import add_fixture_skills, listed, running_app, section


@pytest.fixture
def skills_agent(agent_dir: Path) -> Path:
    add_fixture_skills(agent_dir)
    return agent_dir


@pytest.fixture
def app(qtbot: QtBot, skills_agent: Path) -> Iterator[DesktopApp]:
    with running_app(qtbot, skills_agent) as desktop:
        yield desktop


def top_window_of(kind: type, title: str = "") -> object:
    """A shown window of ``kind`` (with ``title``, when given: an earlier test may leave a message box)."""
    return next(
        (
            w
            for w in QApplication.topLevelWidgets()
            if isinstance(w, kind) and w.isVisible() and (not title or w.windowTitle() == title)
        ),
        None,
    )


def test_the_agents_skills_are_listed_and_searched(qtbot: QtBot, app: DesktopApp) -> None:
    skills = section(app)
    qtbot.waitUntil(lambda: listed(skills) == ["create-plan", "file-conversion"], timeout=WAIT_MS)
    assert skills.view.isVisible() and not skills.empty.isVisible()
    assert "2" in skills.title.text()
    qtbot.keyClicks(skills.search, "heic")
    assert listed(skills) == ["file-conversion"]
    assert "1 of 2" in skills.title.text()
    skills.select("file-conversion")
    screenshot(app.window.context_panel, "skills_searched")
    qtbot.keyClicks(skills.search, " nothing-like-this")
    assert listed(skills) == [] and skills.empty.isVisible()
    assert "No skill matches" in skills.empty.text()
    skills.search.clear()
    assert listed(skills) == ["create-plan", "file-conversion"]


def test_include_mode_and_enabled_are_written_to_agent_yaml_and_the_agent_reloads(
    qtbot: QtBot, app: DesktopApp, skills_agent: Path
) -> None:
    skills = section(app)
    qtbot.waitUntil(lambda: skills.select("create-plan"), timeout=WAIT_MS)
    assert skills.details.isVisible() and skills.include_box.currentData() == "agent"
    skills.include_box.setCurrentIndex(skills.include_box.findData("manual"))
    agent_of = lambda: app.host.workspace.agent  # noqa: E731
    qtbot.waitUntil(lambda: agent_of().skills["create-plan"].include is IncludeMode.MANUAL, timeout=WAIT_MS)
    skills.enabled_box.setChecked(False)
    qtbot.waitUntil(lambda: not agent_of().skills["create-plan"].enabled, timeout=WAIT_MS)
    text = (skills_agent / "agent.yaml").read_text(encoding="utf-8")
    assert "skills:\n  create-plan:\n    include: manual\n    enabled: false\n" in text
    assert text.startswith("name: Test Assistant\n")  # the rest of the file as it was
    # After the reload the same skill is still the chosen one, showing what was saved.
    qtbot.waitUntil(lambda: skills._agent is agent_of(), timeout=WAIT_MS)
    assert skills.current_name() == "create-plan"
    assert skills.include_box.currentData() == "manual" and not skills.enabled_box.isChecked()
    # The SKILL.md is never rewritten: ContextDesk's choices live in agent.yaml.
    assert (skills_agent / "skills/create-plan/SKILL.md").read_bytes() == (
        FIXTURES / "create-plan/SKILL.md"
    ).read_bytes()


def test_view_skill_md_shows_the_file_read_only(qtbot: QtBot, app: DesktopApp) -> None:
    skills = section(app)
    qtbot.waitUntil(lambda: skills.select("file-conversion"), timeout=WAIT_MS)
    qtbot.mouseClick(skills.file_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: top_window_of(SkillFileDialog) is not None, timeout=WAIT_MS)
    dialog = top_window_of(SkillFileDialog)
    assert isinstance(dialog, SkillFileDialog)
    assert dialog.text.isReadOnly()
    assert dialog.text.toPlainText() == (FIXTURES / "file-conversion/SKILL.md").read_text(encoding="utf-8")
    dialog.close()


def test_an_imported_folder_shows_its_whole_report_and_the_agent_reloads(
    qtbot: QtBot, app: DesktopApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "collection"
    for n in range(40):  # more lines than a message box could show
        write(
            source / "skills" / f"skill-{n:02d}/SKILL.md",
            f"---\nname: skill-{n:02d}\ndescription: Do {n}.\n---\nDo {n}.\n",
        )
    write(source / "AGENTS.md", "# Contributing skills\n\nRun `make lint` before a pull request.\n")
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *_a, **_k: str(source))
    qtbot.mouseClick(section(app).import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: top_window_of(ImportReportDialog) is not None, timeout=WAIT_MS)
    dialog = top_window_of(ImportReportDialog)
    assert isinstance(dialog, ImportReportDialog)
    report = dialog.text.toPlainText()
    assert all(f"skill-{n:02d}" in report for n in range(40))
    assert "40 imported" in dialog.summary.text()
    # Import skills takes skills: the collection's AGENTS.md (for its contributors) is not an
    # always-on rule of the agent; the report says how to import it if it is wanted.
    assert "rules 'agents-md' of instruction files" in report and "File ▸ Import agent" in report
    qtbot.waitUntil(lambda: "skill-39" in app.host.workspace.agent.skills, timeout=WAIT_MS)  # type: ignore[union-attr]
    assert "agents-md" not in app.host.workspace.agent.rules  # type: ignore[union-attr]
    dialog.close()


def test_a_folder_nothing_can_be_imported_from_says_why(
    qtbot: QtBot, app: DesktopApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "empty").mkdir()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *_a, **_k: str(tmp_path / "empty"))
    app.window.skill_dialogs.import_skills()
    qtbot.waitUntil(lambda: top_window_of(QMessageBox, "Skills") is not None, timeout=WAIT_MS)
    box = top_window_of(QMessageBox, "Skills")
    assert isinstance(box, QMessageBox) and "nothing to import" in box.text()
    box.close()


def test_an_agent_without_skills_offers_to_import_some(
    qtbot: QtBot, desktop: DesktopApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    monkeypatch.setattr(
        QFileDialog, "getExistingDirectory", lambda _parent, title, _start: asked.append(title) or ""
    )
    skills = section(desktop)
    qtbot.waitUntil(lambda: skills._agent is not None, timeout=WAIT_MS)
    assert skills.empty.isVisible() and not skills.view.isVisible() and not skills.search.isVisible()
    assert "no skills yet" in skills.empty.text() and "Import skills" in skills.empty.text()
    skills.empty.linkActivated.emit("import")
    assert asked and "skill folder" in asked[0]  # the folder to import is asked for
    screenshot(desktop.window.context_panel, "skills_empty")


def test_a_skill_edited_or_added_in_another_program_shows_up(
    qtbot: QtBot, app: DesktopApp, skills_agent: Path
) -> None:
    skills = section(app)
    qtbot.waitUntil(lambda: len(listed(skills)) == 2, timeout=WAIT_MS)
    skill_file = skills_agent / "skills/create-plan/SKILL.md"
    text = skill_file.read_text(encoding="utf-8")
    skill_file.write_text(text.replace("Create a concise plan.", "Draft a short plan."), encoding="utf-8")
    write(
        skills_agent / "skills/notes/SKILL.md", "---\nname: notes\ndescription: Take meeting notes.\n---\nB\n"
    )

    def description(name: str) -> str:
        row = skills.model.row_of(name)
        return "" if row is None else skills.model.row_at(row).description

    qtbot.waitUntil(lambda: description("create-plan").startswith("Draft a short plan."), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: description("notes") == "Take meeting notes.", timeout=WAIT_MS)
