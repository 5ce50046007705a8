"""AGENTS.md, CLAUDE.md, GEMINI.md and Copilot's instruction files as rules, and a project folder
with several kinds of setup imported in one go."""

from __future__ import annotations

import shutil
from pathlib import Path

from agent_core.agent.importers import import_source, read_source
from agent_core.agent.loader import load_agent
from agent_core.agent.schema import IncludeMode
from tests.support.agent_files import write
from tests.support.paths import FIXTURES

PROJECT = FIXTURES / "skill_import" / "project"


def test_a_project_imports_its_skills_instructions_rules_sub_agents_and_servers_in_one_go(
    tmp_path: Path,
) -> None:
    report = import_source(PROJECT, tmp_path / "agent")
    agent = load_agent(tmp_path / "agent")
    assert agent.errors == []
    assert list(agent.skills) == ["review-and-refactor"]
    assert list(agent.subagents) == ["planner"]
    assert list(agent.config.mcp_servers) == ["tessl"]
    assert sorted(agent.rules) == [
        "agents-md",
        "ansible",
        "arch-linux",
        "codex-rs-agents-md",
        "copilot-instructions",
        "dotnet-upgrade",
        "sql",
    ]
    for part in ("Cursor rules", "sub-agents", "Agent Skills", "instruction files"):
        assert part in report.source_format


def test_top_level_instruction_files_are_always_on_rules_with_their_text_unchanged(tmp_path: Path) -> None:
    import_source(PROJECT, tmp_path / "agent")
    rules = load_agent(tmp_path / "agent").rules
    for name, file in (
        ("agents-md", "AGENTS.md"),
        ("copilot-instructions", ".github/copilot-instructions.md"),
    ):
        assert rules[name].include is IncludeMode.ALWAYS and rules[name].globs == ()
        assert rules[name].text.strip() == (PROJECT / file).read_text(encoding="utf-8").strip()


def test_a_nested_agents_md_applies_to_the_files_of_its_folder(tmp_path: Path) -> None:
    import_source(PROJECT, tmp_path / "agent")
    nested = load_agent(tmp_path / "agent").rules["codex-rs-agents-md"]
    assert nested.include is IncludeMode.MANUAL and nested.globs == ("codex-rs/**",)
    assert "codex-rs/AGENTS.md" in nested.description


def test_apply_to_globs_become_the_rules_globs(tmp_path: Path) -> None:
    import_source(PROJECT, tmp_path / "agent")
    rules = load_agent(tmp_path / "agent").rules
    assert rules["arch-linux"].include is IncludeMode.ALWAYS  # applyTo: '**'
    assert rules["ansible"].globs == ("**/*.yaml", "**/*.yml")
    assert rules["ansible"].include is IncludeMode.AGENT  # a description too: chosen by the message
    assert rules["ansible"].description == "Ansible conventions and best practices"
    assert rules["dotnet-upgrade"].globs == () and rules["dotnet-upgrade"].include is IncludeMode.AGENT


def test_agents_md_linked_to_claude_md_is_one_rule(tmp_path: Path) -> None:
    project = tmp_path / "project"
    write(project / "CLAUDE.md", (PROJECT / "AGENTS.md").read_text(encoding="utf-8"))
    (project / "AGENTS.md").symlink_to("CLAUDE.md")
    write(project / "GEMINI.md", "@./CLAUDE.md\n")
    report = import_source(project, tmp_path / "agent")
    assert sorted(load_agent(tmp_path / "agent").rules) == ["claude-md", "gemini-md"]
    assert "AGENTS.md: the same text as CLAUDE.md; imported once" in report.skipped
    assert any("GEMINI.md: its @file lines import other files" in line for line in report.warnings)


def test_one_instruction_file_imports_alone(tmp_path: Path) -> None:
    imported = read_source(PROJECT / ".github" / "instructions" / "ansible.instructions.md")
    assert [document.name for document in imported.documents] == ["ansible"]
    assert imported.skills == [] and imported.mcp_servers == {}


def test_an_instruction_file_linking_out_of_the_project_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "home" / "notes.md", "SSH key: hunter2\n")
    project = tmp_path / "project"
    shutil.copytree(PROJECT / ".claude", project / ".claude")
    (project / "AGENTS.md").symlink_to(tmp_path / "home" / "notes.md")
    report = import_source(project, tmp_path / "agent")
    assert not (tmp_path / "agent" / "rules").exists()
    assert any(line.startswith("AGENTS.md: it links to") for line in report.skipped)


def test_an_instruction_file_inside_a_skill_belongs_to_the_skill(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(PROJECT / ".claude", project / ".claude")
    write(project / ".claude/skills/review-and-refactor/CLAUDE.md", "Notes for the skill's authors.\n")
    import_source(project, tmp_path / "agent")
    agent = load_agent(tmp_path / "agent")
    assert agent.rules == {}
    assert agent.skills["review-and-refactor"].files == ("CLAUDE.md",)


def test_claude_md_in_the_claude_folder_is_the_projects_own(tmp_path: Path) -> None:
    write(tmp_path / "project" / ".claude" / "CLAUDE.md", (PROJECT / "AGENTS.md").read_text(encoding="utf-8"))
    import_source(tmp_path / "project", tmp_path / "agent")
    rule = load_agent(tmp_path / "agent").rules["claude-md"]
    assert rule.include is IncludeMode.ALWAYS and rule.globs == ()
