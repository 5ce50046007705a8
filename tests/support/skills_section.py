"""The desktop's Skills section in a running app, as the skills panel tests drive it: an agent
holding the real skills of tests/fixtures/desktop_skills, the app started on it, and what the
section lists."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp, create_app
from desktop.models.skills_model import SkillRole
from desktop.views.skills_panel import SkillsSection
from tests.support.desktop_driver import WAIT_MS
from tests.support.paths import REPO_ROOT

__all__ = ["SKILL_FIXTURES", "add_fixture_skills", "listed", "running_app", "section"]

SKILL_FIXTURES = REPO_ROOT / "tests" / "fixtures" / "desktop_skills"


def add_fixture_skills(agent_dir: Path) -> Path:
    """``agent_dir`` with every skill of the fixtures copied into its skills/ folder."""
    for folder in SKILL_FIXTURES.iterdir():
        if folder.is_dir():
            shutil.copytree(folder, agent_dir / "skills" / folder.name)
    return agent_dir


@contextmanager
def running_app(qtbot: QtBot, agent_dir: Path) -> Iterator[DesktopApp]:
    """The app started on ``agent_dir``, once its first chat is open; closed after."""
    create_app()
    desktop = DesktopApp()
    desktop.start(agent_dir)
    qtbot.waitUntil(lambda: desktop.window.current_controller() is not None, timeout=WAIT_MS)
    try:
        yield desktop
    finally:
        desktop.close()


def section(app: DesktopApp) -> SkillsSection:
    return app.window.context_panel.skills


def listed(skills: SkillsSection) -> list[str]:
    """The skill names the section shows, in order (after its search)."""
    return [skills.proxy.index(r, 0).data(SkillRole.NAME) for r in range(skills.proxy.rowCount())]
