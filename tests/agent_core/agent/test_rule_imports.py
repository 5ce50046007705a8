"""Importing rules as users have them: TsAgent's legacy .mdt files and Cursor's rule files (issue 17)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.agent import IncludeMode, load_agent
from agent_core.agent.importers import import_source, read_source
from agent_core.agent.importers._cursor_header import read_cursor_header
from agent_core.agent.importers._mdt import MdtError, split_mdt
from agent_core.agent.names import name_problem, numbered_name

CORPUS = Path(__file__).parents[2] / "fixtures" / "importers" / "rules-corpus"


def test_legacy_mdt_headers_in_yaml_and_closed_by_brace_fence_are_read(tmp_path: Path) -> None:
    report = import_source(CORPUS / "tsagent-legacy-yaml", tmp_path / "agent")
    agent = load_agent(tmp_path / "agent")
    assert agent.errors == []
    changelog = agent.rules["changelog"]  # a YAML header
    assert changelog.description == "Keeping CHANGELOG.md: one line per change, newest first"
    assert changelog.include is IncludeMode.ALWAYS and changelog.priority_level == 100
    assert changelog.text.startswith('Add every user-visible change to CHANGELOG.md under "Unreleased".')
    semver = agent.rules["semver"]  # JSON closed by '}---', as TsAgent writes it
    assert semver.include is IncludeMode.MANUAL and semver.priority_level == 200
    assert semver.text.strip() == "Breaking change: major. New feature: minor. Fix: patch."
    checklist = agent.references["release-checklist"]  # '}---' on the only header line, CRLF
    assert checklist.include is IncludeMode.AGENT
    assert checklist.text.startswith("# Release checklist\n\n1. Tests green")
    assert report.skipped == ["metadata: version: no counterpart in ContextDesk, left out (nothing to do)"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no header\n", "no '---' header"),
        ("---\nname: x\nbody\n", "never closed"),
        ('---\n{"name": \n---\nbody\n', "neither JSON nor YAML"),
        ("---\n- a\n- b\n---\nbody\n", "not a mapping"),
        ("---\n!!python/object:os.system {}\n---\nbody\n", "neither JSON nor YAML"),
    ],
)
def test_an_unreadable_mdt_header_says_what_to_fix(text: str, message: str) -> None:
    with pytest.raises(MdtError, match=message):
        split_mdt(text)


def test_a_tspark_json_agent_is_read_as_a_folder_or_as_its_file(tmp_path: Path) -> None:
    for source, target in (
        (CORPUS / "tspark-agent", "folder"),
        (CORPUS / "tspark-agent" / "tspark.json", "file"),
    ):
        import_source(source, tmp_path / target)
        agent = load_agent(tmp_path / target)
        assert agent.errors == []
        assert agent.name == "Old Spark"
        assert agent.config.system_prompt == "You are Spark, a careful assistant.\n"
        assert set(agent.rules) == {"be-brief"} and set(agent.references) == {"glossary"}


def test_old_per_tool_keys_map_onto_tool_defaults_and_tools(tmp_path: Path) -> None:
    report = import_source(CORPUS / "tspark-agent", tmp_path / "agent")
    servers = load_agent(tmp_path / "agent").config.mcp_servers
    files = servers["filesystem"]
    assert files.tool_defaults.include is IncludeMode.MANUAL
    assert files.tool_defaults.permission_required is True
    assert files.tools["read_file"].include is IncludeMode.ALWAYS
    assert files.tools["read_file"].permission_required is False
    assert files.tools["list_directory"].permission_required is False
    fetch = servers["fetch"]  # toolEnabled: false -> manual (kept out of chats until added)
    assert fetch.tools["fetch_raw"].include is IncludeMode.MANUAL
    assert not any("toolInclude" in line or "toolPermissionRequired" in line for line in report.skipped)


def test_a_cursorrules_file_as_the_source_is_one_always_rule_without_bom(tmp_path: Path) -> None:
    source = CORPUS / "cursorrules-only" / ".cursorrules"
    assert source.read_bytes().startswith(b"\xef\xbb\xbf")
    import_source(source, tmp_path / "agent")
    rule = load_agent(tmp_path / "agent").rules["cursorrules"]
    assert rule.include is IncludeMode.ALWAYS
    assert rule.text.startswith("You are an expert in TypeScript")
    assert "\ufeff" not in rule.text and "\r" not in rule.text


def test_one_mdc_file_as_the_source_imports_that_rule_only(tmp_path: Path) -> None:
    import_source(CORPUS / "cursor-both" / ".cursor" / "rules" / "quoted.mdc", tmp_path / "agent")
    agent = load_agent(tmp_path / "agent")
    assert set(agent.rules) == {"quoted"}
    assert agent.rules["quoted"].text.startswith("Never swallow")  # the BOM did not hide the header


def test_a_project_with_cursorrules_and_rules_folder_imports_both_and_reports_other_files(
    tmp_path: Path,
) -> None:
    report = import_source(CORPUS / "cursor-both", tmp_path / "agent")
    rules = load_agent(tmp_path / "agent").rules
    assert set(rules) == {"api-style", "quoted", "testing", "cursorrules"}
    assert rules["testing"].include is IncludeMode.MANUAL  # a .md rule without a header
    assert rules["testing"].text.startswith("# Testing")
    assert rules["api-style"].description == 'REST endpoints, as in "api/v2"'  # the closing quote stays
    assert rules["quoted"].description == 'Error handling: "fail loudly"'  # quoted whole: unquoted
    assert any(line.startswith("rules/notes.txt: Cursor reads only .mdc and .md") for line in report.skipped)


def test_a_plain_file_cursor_rules_from_older_cursor_is_one_rule(tmp_path: Path) -> None:
    import_source(CORPUS / "cursor-old", tmp_path / "agent")
    rule = load_agent(tmp_path / "agent").rules["cursor-rules"]
    assert rule.include is IncludeMode.ALWAYS
    assert rule.text.startswith("Prefer composition over inheritance.")


def test_a_md_file_in_cursor_rules_is_detected_as_a_cursor_rule() -> None:
    imported = read_source(CORPUS / "cursor-both" / ".cursor" / "rules" / "testing.md")
    assert [d.name for d in imported.documents] == ["testing"]


def test_long_colliding_names_are_shortened_to_stay_valid(tmp_path: Path) -> None:
    report = import_source(CORPUS / "cursor-long-names", tmp_path / "agent")
    names = sorted(load_agent(tmp_path / "agent").rules)
    assert len(names) == 2
    assert all(name_problem(name) is None and len(name) <= 80 for name in names)
    assert any(name.endswith("-2") for name in names)
    assert any("renamed to" in line and "same name" in line for line in report.warnings)


def test_numbered_names_keep_within_the_limit() -> None:
    name = "a" * 80
    assert numbered_name(name, set()) == name
    assert numbered_name(name, {name}) == "a" * 78 + "-2"
    assert numbered_name("rule", {"rule", "rule-2"}) == "rule-3"


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ('description: Use "strict" mode"', 'Use "strict" mode"'),
        ("description: 'It''s fine'", "It's fine"),
        ('description: "a \\"b\\""', 'a "b"'),
        ('description: "a" and "b"', '"a" and "b"'),
        ("globs: *.ts, src/**/*.tsx", "*.ts, src/**/*.tsx"),
        ("description: x: y", "x: y"),
    ],
)
def test_cursor_header_values_are_unquoted_only_when_quoted_whole(line: str, value: str) -> None:
    assert read_cursor_header(line)[line.partition(":")[0]] == value
