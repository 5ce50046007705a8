"""What the Skills section asks of the core, called directly: a SKILL.md read for viewing (a skill
may come from anyone: no link out of the agent folder, no named pipe, a bounded read) and a skill's
settings written to agent.yaml."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agent_core.agent.loader import load_agent
from agent_core.errors import AgentFileError
from desktop.controllers.skill_actions import read_skill_file, write_skill_setting
from tests.support.agent_files import write
from tests.support.paths import REPO_ROOT

FIXTURES = REPO_ROOT / "tests" / "fixtures" / "desktop_skills"


def test_a_skill_md_is_read_whole(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "create-plan", tmp_path / "skills/create-plan")
    path = tmp_path / "skills/create-plan/SKILL.md"
    file = read_skill_file(path, tmp_path)
    assert file.text == path.read_text(encoding="utf-8") and not file.truncated


def test_a_long_skill_md_shows_its_start_and_says_it_was_cut(tmp_path: Path) -> None:
    path = write(tmp_path / "skills/big/SKILL.md", "---\nname: big\ndescription: d\n---\n" + "x" * 5000)
    file = read_skill_file(path, tmp_path, limit=1000)
    assert file.truncated and len(file.text) == 1000 and file.text.startswith("---\nname: big")


def test_a_skill_md_linking_out_of_the_agent_folder_is_not_shown(tmp_path: Path) -> None:
    secret = write(tmp_path / "outside/notes.txt", "my secret notes")
    agent = tmp_path / "agent"
    (agent / "skills/evil").mkdir(parents=True)
    (agent / "skills/evil/SKILL.md").symlink_to(secret)
    with pytest.raises(AgentFileError, match="outside the agent folder"):
        read_skill_file(agent / "skills/evil/SKILL.md", agent)


def test_a_named_pipe_for_a_skill_md_is_refused_without_waiting(tmp_path: Path) -> None:
    (tmp_path / "skills/pipe").mkdir(parents=True)
    os.mkfifo(tmp_path / "skills/pipe/SKILL.md")  # opening it to read would block for a writer
    with pytest.raises(AgentFileError, match="not an ordinary file"):
        read_skill_file(tmp_path / "skills/pipe/SKILL.md", tmp_path)


def test_a_gone_skill_md_says_what_to_check(tmp_path: Path) -> None:
    with pytest.raises(AgentFileError, match="still there"):
        read_skill_file(tmp_path / "skills/gone/SKILL.md", tmp_path)


def test_settings_are_written_to_the_skills_entry_changing_nothing_else(tmp_path: Path) -> None:
    write(tmp_path / "agent.yaml", "name: a  # my agent\n")
    shutil.copytree(FIXTURES / "create-plan", tmp_path / "skills/create-plan")
    agent = load_agent(tmp_path)
    assert write_skill_setting(agent, "create-plan", "include", "always")
    assert write_skill_setting(agent, "create-plan", "enabled", "false")
    assert not write_skill_setting(agent, "create-plan", "enabled", "false")  # already so
    assert (tmp_path / "agent.yaml").read_text() == (
        "name: a  # my agent\nskills:\n  create-plan:\n    include: always\n    enabled: false\n"
    )
    with pytest.raises(AgentFileError, match="sometimes"):
        write_skill_setting(agent, "create-plan", "include", "sometimes")
