"""What an import takes from a source, and what it says of the rest: skills only when asked (a
collection's own AGENTS.md is for its contributors), never the agent folder it goes into, and a
plain "Nothing was imported" with no agent folder left behind when nothing could be taken."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_core.agent.importers import SKILL_IMPORTERS, AgentImportError, import_source
from agent_core.agent.loader import load_agent
from agent_core.cli.main import main
from tests.support.agent_files import write
from tests.support.paths import FIXTURES

COLLECTION_REPO = FIXTURES / "skill_import" / "collection_repo"
SHELLCHECK = FIXTURES / "skill_import/collection/plugins/shell-scripting/skills/shellcheck-configuration"


def test_a_skills_only_import_leaves_the_collections_own_instruction_files_out_and_says_how_to_import_them(
    tmp_path: Path,
) -> None:
    report = import_source(COLLECTION_REPO, tmp_path / "agent", only=SKILL_IMPORTERS)
    agent = load_agent(tmp_path / "agent")
    assert list(agent.skills) == ["property-based-testing"]
    assert agent.rules == {}  # no always-on AGENTS.md to overflow a small model's window
    (left_out,) = [line for line in report.skipped if "not imported" in line]
    assert "rules 'agents-md', 'claude-md' of instruction files" in left_out
    assert "File ▸ Import agent (a file or a folder)…" in left_out
    assert f"contextdesk agent import {COLLECTION_REPO} AGENT_FOLDER" in left_out


def test_an_import_without_only_still_takes_every_part(tmp_path: Path) -> None:
    import_source(COLLECTION_REPO, tmp_path / "agent")
    assert set(load_agent(tmp_path / "agent").rules) == {"agents-md", "claude-md"}


def test_a_skills_only_import_of_a_folder_without_skills_says_what_the_folder_holds(tmp_path: Path) -> None:
    write(tmp_path / "project/AGENTS.md", "# Contributing\n\nRun the tests.\n")
    with pytest.raises(AgentImportError, match=r"nothing to import.*rules 'agents-md'.*not imported"):
        import_source(tmp_path / "project", tmp_path / "agent", only=SKILL_IMPORTERS)
    assert not (tmp_path / "agent").exists()


def test_an_unknown_importer_name_lists_the_names_there_are(tmp_path: Path) -> None:
    with pytest.raises(AgentImportError, match=r"no importer is named skils: choose from .*skills"):
        import_source(COLLECTION_REPO, tmp_path / "agent", only=["skils"])


def test_the_cli_imports_only_skills_when_asked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["agent", "import", "--only", "skills", str(COLLECTION_REPO), str(tmp_path / "agent")])
    out = capsys.readouterr().out
    assert code == 0
    assert "imported: skill 'property-based-testing'" in out
    assert "skipped: rules 'agents-md', 'claude-md' of instruction files" in out
    assert load_agent(tmp_path / "agent").rules == {}


def test_an_agent_folder_inside_the_source_is_not_imported_into_itself(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    shutil.copytree(SHELLCHECK, project / ".claude/skills/shellcheck-configuration")
    for _ in range(2):  # with --keep-duplicates each run once added another copy of its own skill
        report = import_source(project, project / "myagent", keep_duplicates=True)
    assert list(load_agent(project / "myagent").skills) == ["shellcheck-configuration"]
    assert any(line.startswith("myagent: the agent folder this import goes into") for line in report.skipped)


def test_an_import_of_nothing_says_so_exits_1_and_creates_no_agent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    skill = tmp_path / "latin1"
    skill.mkdir()
    (skill / "SKILL.md").write_bytes("---\nname: latin1\ndescription: Café\n---\nBody\n".encode("latin-1"))
    code = main(["agent", "import", str(skill), str(tmp_path / "zz")])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("Nothing was imported: the lines below say why")
    assert "not UTF-8" in out and "Imported" not in out
    assert not (tmp_path / "zz").exists()  # all or nothing: no agent.yaml-only folder left behind


def test_an_import_the_agent_already_has_writes_nothing_and_says_nothing_was_imported(tmp_path: Path) -> None:
    import_source(SHELLCHECK, tmp_path / "agent")
    report = import_source(SHELLCHECK, tmp_path / "agent")
    assert report.nothing_imported
    assert report.headline == "Nothing was imported: the lines below say why."
    assert report.skipped == [
        "skill 'shellcheck-configuration' (from .): the agent has the same one; nothing to do"
    ]
