"""What a folder holds to import (a project's parts, found in one go), and where an import may go:
an agent to merge into or a new folder, never a folder of other files or one inside an agent."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.agent.agent import AGENT_FILE
from agent_core.agent.importers import (
    AgentImportError,
    check_import_target,
    detected_formats,
    import_source,
)
from agent_core.agent.scaffold import create_agent
from tests.support.import_projects import project_with_every_part


def test_a_project_folder_lists_each_format_it_holds_and_a_plain_folder_none(
    fixtures_dir: Path, tmp_path: Path
) -> None:
    project = project_with_every_part(fixtures_dir, tmp_path / "project")
    found = detected_formats(project)
    assert [line.split(" (")[0] for line in found] == [
        "Cursor rules",
        "Claude Code sub-agents",
        "an MCP config file",
        "Agent Skills",
    ]
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "notes.txt").write_text("shopping list")
    assert detected_formats(tmp_path / "plain") == []
    assert detected_formats(tmp_path / "missing") == []
    assert len(detected_formats(project / ".cursor" / "rules")) == 1  # one part alone
    broken = tmp_path / "mcp.json"
    broken.write_text('{"mcpServers": {"x": {"command": "a",,')
    with pytest.raises(AgentImportError, match=f"cannot read {broken}"):
        detected_formats(broken)  # a typo is named, not "nothing to import"


def test_a_new_folder_by_name_becomes_the_agent_and_an_agent_folder_is_merged_into(
    fixtures_dir: Path, tmp_path: Path
) -> None:
    target = tmp_path / "agents" / "from-cursor"  # neither it nor its parent exists yet
    assert check_import_target(target) is False
    import_source(fixtures_dir / "importers" / "cursor-project", target)
    assert (target / AGENT_FILE).is_file()
    assert check_import_target(target) is True
    (tmp_path / "empty").mkdir()
    assert check_import_target(tmp_path / "empty") is False


def test_a_folder_of_other_files_a_file_or_a_folder_inside_an_agent_is_refused(tmp_path: Path) -> None:
    documents = tmp_path / "documents"
    documents.mkdir()
    (documents / "letter.txt").write_text("Dear Sam")
    with pytest.raises(AgentImportError, match="already holds files and is not an agent folder"):
        check_import_target(documents)
    with pytest.raises(AgentImportError, match="is a file, not a folder"):
        check_import_target(documents / "letter.txt")
    agent = tmp_path / "agent"
    create_agent(agent)
    with pytest.raises(AgentImportError, match=f"inside the agent folder {agent}"):
        check_import_target(agent / "skills" / "new-agent")
    link = tmp_path / "looks-elsewhere"
    link.symlink_to(agent / "skills")
    with pytest.raises(AgentImportError, match="inside the agent folder"):  # a link leads in as well
        check_import_target(link / "new-agent")
    with pytest.raises(AgentImportError, match="not a full path"):
        check_import_target(Path("relative-name"))
    assert not (agent / "skills" / "new-agent").exists()
