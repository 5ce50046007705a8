"""Importing Agent Skills: a collection at any depth, byte for byte, messy names made valid with
the original kept as the display name, unfilled templates, and what the report says of each."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest

from agent_core.agent.importers import import_source
from agent_core.agent.loader import load_agent
from agent_core.cli.main import main
from tests.support.agent_files import write
from tests.support.paths import FIXTURES

COLLECTION = FIXTURES / "skill_import" / "collection"
SHELLCHECK = COLLECTION / "plugins/shell-scripting/skills/shellcheck-configuration"


def files_of(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        path.relative_to(folder).as_posix(): (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def skill_with_name(folder: Path, name_line: str) -> Path:
    """A copy of the real shellcheck skill whose header's name line reads ``name_line``."""
    shutil.copytree(SHELLCHECK, folder)
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    (folder / "SKILL.md").write_text(
        text.replace("name: shellcheck-configuration", name_line, 1), encoding="utf-8"
    )
    return folder


def test_a_cloned_collection_imports_every_skill_byte_for_byte_with_its_file_modes(tmp_path: Path) -> None:
    report = import_source(COLLECTION, tmp_path / "agent")
    skills = tmp_path / "agent" / "skills"
    assert sorted(p.name for p in skills.iterdir()) == [
        "a11y-audit",
        "agent-name",
        "codex-image-gallery",
        "gh-address-comments",  # in skills/.curated/: hidden folders are searched too
        "postgresql-table-design",  # its folder is postgresql; its SKILL.md names it
        "shellcheck-configuration",
        "startup-cto",
    ]
    assert files_of(skills / "codex-image-gallery") == files_of(COLLECTION / "codex-image-gallery")
    assert files_of(skills / "postgresql-table-design") == files_of(
        COLLECTION / "plugins/database-design/skills/postgresql"
    )
    assert files_of(skills / "codex-image-gallery")["scripts/server.mjs"][1] & stat.S_IXUSR
    assert report.skipped == []
    agent = load_agent(tmp_path / "agent")
    assert agent.errors == []  # `agent check` passes
    assert set(agent.skills) == {p.name for p in skills.iterdir()}
    assert agent.skills["startup-cto"].display_name == "Startup CTO"
    assert agent.skills["gh-address-comments"].files == ("LICENSE.txt", "scripts/fetch_comments.py")


def test_names_the_standard_does_not_allow_become_valid_ones_with_the_original_as_display_name(
    tmp_path: Path,
) -> None:
    source = tmp_path / "collection"
    given = {
        "title": "name: Shellcheck Configuration",
        "spaces": "name: shellcheck   setup with spaces",
        "underscores": "name: shellcheck_configuration_v2",
        "hyphen": "name: -shellcheck-strict",
        "long": "name: " + "very-long-shellcheck-configuration-name-" * 3,
        "accents": "name: Vérification Shell",
    }
    for folder, line in given.items():
        skill_with_name(source / folder, line)
    report = import_source(source, tmp_path / "agent")
    agent = load_agent(tmp_path / "agent")
    names = {skill.display_name: name for name, skill in agent.skills.items()}
    assert names["Shellcheck Configuration"] == "shellcheck-configuration"
    assert names["shellcheck   setup with spaces"] == "shellcheck-setup-with-spaces"
    assert names["shellcheck_configuration_v2"] == "shellcheck-configuration-v2"
    assert names["-shellcheck-strict"] == "shellcheck-strict"
    assert names["Vérification Shell"] == "verification-shell"
    long_name = names["very-long-shellcheck-configuration-name-" * 3]
    assert len(long_name) <= 64 and not long_name.endswith("-") and long_name.startswith("very-long")
    assert agent.errors == []
    for skill in agent.skills.values():  # the SKILL.md itself is never rewritten
        assert skill.path is not None
        assert (
            skill.path.read_bytes()
            == (source / _folder_of(given, skill.display_name) / "SKILL.md").read_bytes()
        )
    renamed = [line for line in report.warnings if "is not a skill name the standard allows" in line]
    assert len(renamed) == 5 and any("'Shellcheck Configuration'" in line for line in renamed)
    assert any("longer than the standard's 64 characters" in line for line in report.warnings)


def _folder_of(given: dict[str, str], display: str) -> str:
    return next(folder for folder, line in given.items() if line == f"name: {display}")


def test_a_skill_without_a_name_is_named_after_its_folder_and_a_long_description_is_kept_whole(
    tmp_path: Path,
) -> None:
    folder = skill_with_name(tmp_path / "src" / "Shell Check", "")
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    long = "Use when configuring ShellCheck. " * 40
    (folder / "SKILL.md").write_text(
        text.replace("description: ", f"description: {long}", 1), encoding="utf-8"
    )
    report = import_source(tmp_path / "src", tmp_path / "agent")
    agent = load_agent(tmp_path / "agent")
    assert list(agent.skills) == ["shell-check"]
    assert agent.skills["shell-check"].description.startswith(long.strip())
    assert any("named 'shell-check': 'Shell Check' is not a skill name" in line for line in report.warnings)
    assert any("more than the standard's 1024: imported whole" in line for line in report.warnings)
    assert agent.errors == []


def test_an_unfilled_template_is_imported_disabled_and_reported(tmp_path: Path) -> None:
    source = tmp_path / "collection"
    shutil.copytree(COLLECTION / "personas" / "TEMPLATE", source / "TEMPLATE")
    skill_with_name(source / "template-skill", "name: template-skill")
    text = (source / "template-skill/SKILL.md").read_text(encoding="utf-8").split("\n")
    text[2] = "description: Replace with description of the skill and when to use it."
    (source / "template-skill/SKILL.md").write_text("\n".join(text), encoding="utf-8")
    report = import_source(source, tmp_path / "agent")
    agent = load_agent(tmp_path / "agent")
    assert {name: skill.enabled for name, skill in agent.skills.items()} == {
        "agent-name": False,
        "template-skill": False,
    }
    assert "skill 'agent-name' (1 file, disabled)" in report.created
    assert sum("looks like a template nobody filled in" in line for line in report.warnings) == 2
    assert agent.errors == []


def test_a_real_skill_about_templates_is_not_taken_for_an_unfilled_one(tmp_path: Path) -> None:
    skill_with_name(tmp_path / "src" / "atlassian-templates", "name: atlassian-templates")
    import_source(tmp_path / "src", tmp_path / "agent")
    assert load_agent(tmp_path / "agent").skills["atlassian-templates"].enabled


@pytest.mark.parametrize(
    "given",
    ["one skill folder", "its SKILL.md", ".claude/skills of a project"],
)
def test_one_skill_a_skill_file_or_a_claude_skills_folder_imports(tmp_path: Path, given: str) -> None:
    project = tmp_path / "project"
    shutil.copytree(SHELLCHECK, project / ".claude" / "skills" / "shellcheck-configuration")
    source = {
        "one skill folder": project / ".claude" / "skills" / "shellcheck-configuration",
        "its SKILL.md": project / ".claude" / "skills" / "shellcheck-configuration" / "SKILL.md",
        ".claude/skills of a project": project / ".claude" / "skills",
    }[given]
    import_source(source, tmp_path / "agent")
    skills = tmp_path / "agent" / "skills"
    assert files_of(skills / "shellcheck-configuration") == files_of(SHELLCHECK)


def test_a_dry_run_reports_every_skill_and_writes_nothing(tmp_path: Path) -> None:
    report = import_source(COLLECTION, tmp_path / "agent", dry_run=True)
    assert len([line for line in report.created if line.startswith("skill ")]) == 7
    assert not (tmp_path / "agent").exists()


def test_the_cli_prints_what_was_renamed_and_why(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["agent", "import", str(COLLECTION), str(tmp_path / "agent")])
    out = capsys.readouterr().out
    assert code == 0
    assert "imported: skill 'startup-cto' (1 file)" in out
    assert "named 'startup-cto': 'Startup CTO' is not a skill name the standard allows" in out
    assert "imported disabled" in out
    assert "check:" not in out.replace(
        "check: skills/a11y-audit/SKILL.md", ""
    )  # only the loose header's warning


def test_a_skills_git_and_node_modules_folders_are_left_out_with_a_line_each(tmp_path: Path) -> None:
    skill = tmp_path / "src/shellcheck-configuration"
    shutil.copytree(SHELLCHECK, skill)
    write(skill / ".git/HEAD", "ref: refs/heads/main\n")
    write(skill / "scripts/node_modules/left-pad/index.js", "module.exports = () => {};\n")
    report = import_source(tmp_path / "src", tmp_path / "agent")
    copied = tmp_path / "agent/skills/shellcheck-configuration"
    assert not (copied / ".git").exists() and not (copied / "scripts/node_modules").exists()
    left_out = [line for line in report.warnings if "a version-control or dependency folder" in line]
    assert [line.split(": ")[1] for line in left_out] == [".git/", "scripts/node_modules/"]


def test_a_lowercase_skill_md_is_reported_with_the_name_it_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    shutil.copytree(SHELLCHECK, project / ".claude/skills/shellcheck-configuration")
    write(
        project / ".claude/skills/word-count/skill.md",
        "---\nname: word-count\ndescription: Count words.\n---\n",
    )
    report = import_source(project, tmp_path / "agent")
    assert report.skipped == [
        ".claude/skills/word-count/skill.md: a skill's file must be named SKILL.md, in capitals (the loader "
        "and other tools look for that name only): rename it to SKILL.md and import again"
    ]
    code = main(["agent", "import", str(project / ".claude/skills/word-count"), str(tmp_path / "alone")])
    out = capsys.readouterr().out
    assert code == 1 and out.startswith("Nothing was imported")
    assert "skill.md: a skill's file must be named SKILL.md" in out
