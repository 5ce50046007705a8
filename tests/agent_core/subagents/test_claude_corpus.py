"""Real Claude Code agent files from public repositories (tests/fixtures/claude_agents_corpus) import
completely: headers YAML rejects, names that cannot be file names, files without a header or with
one in the wrong place, and several files with one name. Every change is in the report; every file
loads as a sub-agent, and the files nothing had to change are copied byte for byte."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from agent_core.agent.importers import import_source, read_source
from agent_core.agent.items import Problem
from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.agent.subagent_files.loader import load_subagents
from agent_core.cli.main import main
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from tests.support.chat_tools import PythonTools, Tool
from tests.support.delegations import delegation_runner

CORPUS = Path(__file__).parents[2] / "fixtures" / "claude_agents_corpus"
AGENT_FILES = sorted(p for p in CORPUS.rglob("*.md") if p.name != "README.md")


def shown(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(CORPUS, tmp_path / "project" / ".claude" / "agents")
    return tmp_path / "project"


def lines_about(file: str, lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith(f"{file}: ")]


def test_the_corpus_is_real_and_large_enough() -> None:
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    assert len(AGENT_FILES) >= 30
    assert all(f"| `{shown(path)}` |" in readme for path in AGENT_FILES)  # each one's source is named


def test_every_file_imports_and_loads_as_a_sub_agent(project: Path, tmp_path: Path) -> None:
    target = create_agent(tmp_path / "agent").root
    report = import_source(project, target)
    [readme] = report.skipped
    assert readme.startswith("README.md: has no header and its name says it is documentation, not an agent")
    assert len(report.created) == len(AGENT_FILES)
    agent = load_agent(target)
    assert len(agent.subagents) == len(AGENT_FILES)
    errors = [p.describe() for p in agent.problems if p.severity == "error"]
    assert errors == []
    assert all(s.description and s.prompt for s in agent.subagents.values())


def test_each_change_is_reported_and_every_other_file_is_copied_unchanged(project: Path) -> None:
    imported = read_source(project)
    copied = set(imported.subagent_files.values())
    changed = {shown(path) for path in AGENT_FILES if path.read_text(encoding="utf-8") not in copied}
    assert changed == {
        "0xfurai/sqs-expert.md",  # header found after a blank line and indentation
        "contains-studio/frontend-developer.md",  # name: line numbered
        "voltagent/frontend-developer.md",
        "switchboard/code-reviewer.agent.md",
        "nhl-framework/code-reviewer.md",  # header added
        "nhl-framework/code-simplifier.md",
        "nhl-framework/visual-qa.md",
        "sub-agent-collective/routing-agent.md",
    }
    for file in changed:  # each says why its copy differs
        notes = lines_about(file, imported.report.warnings)
        assert any("header" in note or "name: line" in note for note in notes), (file, notes)


def test_names_are_made_valid_and_the_original_is_kept_as_the_display_name(
    project: Path, tmp_path: Path
) -> None:
    target = create_agent(tmp_path / "agent").root
    report = import_source(project, target)
    subagents = load_agent(target).subagents
    expected = {
        "agency-agents/engineering-sre.md": (
            "sre-site-reliability-engineer",
            "SRE (Site Reliability Engineer)",
        ),
        "agency-agents/finance-fpa-analyst.md": ("fp-a-analyst", "FP&A Analyst"),
        "agency-agents/lsp-index-engineer.md": ("lsp-index-engineer", "LSP/Index Engineer"),
        "agency-agents/zk-steward.md": ("zk-steward", "ZK Steward"),
        "voltagent/powershell-5.1-expert.md": ("powershell-5-1-expert", "powershell-5.1-expert"),
    }
    for file, (name, original) in expected.items():
        assert subagents[name].display_name == original
        assert (target / "subagents" / f"{name}.md").read_bytes() == (CORPUS / file).read_bytes()
        [note] = [line for line in lines_about(file, report.warnings) if "display name" in line]
        assert f"the name '{original}'" in note and f"'{name}'" in note


def test_files_with_one_name_are_all_kept_numbered_and_reported(project: Path) -> None:
    imported = read_source(project)
    warnings = imported.report.warnings
    # Sorted by path, the first keeps the name; the others are numbered in that order.
    numbered = {
        "contains-studio/frontend-developer.md": "frontend-developer-2",
        "voltagent/frontend-developer.md": "frontend-developer-3",
        "nhl-framework/code-reviewer.md": "code-reviewer-2",
        "nhl-framework/code-simplifier.md": "code-simplifier-2",
        "switchboard/code-reviewer.agent.md": "code-reviewer-3",
    }
    assert (CORPUS / "agency-agents/engineering-frontend-developer.md").read_text(
        encoding="utf-8"
    ) == imported.subagent_files["frontend-developer"]
    for file, name in numbered.items():
        text = imported.subagent_files[name]
        assert any(f"'{name}'" in line for line in lines_about(file, warnings)), file
        assert f'\nname: "{name}"\n' in text  # its header (its own or the one added) says the new name
    renamed = lines_about("contains-studio/frontend-developer.md", warnings)
    assert any(
        "agency-agents/engineering-frontend-developer.md is already the sub-agent" in line for line in renamed
    )


def test_headers_yaml_rejects_are_read_whole_as_claude_code_reads_them(project: Path, tmp_path: Path) -> None:
    target = create_agent(tmp_path / "agent").root
    report = import_source(project, target)
    subagents = load_agent(target).subagents
    designer = subagents["ui-designer"]
    # The <example> blocks' "user:" lines at the left margin stay part of the description.
    assert designer.description.startswith("Use this agent when creating user interfaces")
    assert designer.description.endswith("</example>")
    assert designer.tools == ("workspace.read_file",)
    leniently = [line for line in report.warnings if "read line by line" in line]
    assert {line.split(": ", 1)[0] for line in leniently} >= {
        "contains-studio/ui-designer.md",
        "voltagent/gdpr-ccpa-compliance.md",
        "agency-agents/zk-steward.md",
        "sub-agent-collective/task-orchestrator.md",
    }
    assert not any(
        "unknown key 'user'" in line or "unknown key 'Context'" in line for line in report.warnings
    )


def test_a_file_without_a_header_imports_its_whole_text_as_the_prompt(project: Path, tmp_path: Path) -> None:
    target = create_agent(tmp_path / "agent").root
    report = import_source(project, target)
    agent = load_agent(target)
    original = (CORPUS / "nhl-framework/visual-qa.md").read_text(encoding="utf-8")
    visual = agent.subagents["visual-qa"]
    assert visual.prompt == original.strip()
    assert visual.description.startswith(
        "Visual QA Specialist Agent: The pixel-perfect verification specialist"
    )
    assert agent.subagents["routing-agent"].description.startswith("Routing Agent: ")
    [note] = lines_about("nhl-framework/visual-qa.md", report.warnings)
    assert "has no header" in note and "description taken from the text" in note


def test_a_header_after_blank_lines_and_indentation_is_found(project: Path) -> None:
    imported = read_source(project)
    text = imported.subagent_files["sqs-expert"]
    assert text.startswith("---\nname: sqs-expert\n")
    assert "\n## Focus Areas\n" in text  # the body is no longer one indented code block
    [note] = lines_about("0xfurai/sqs-expert.md", imported.report.warnings)
    assert "did not start on the first line" in note


def test_the_cli_prints_every_change(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = create_agent(tmp_path / "agent").root
    assert main(["agent", "import", str(project), str(target)]) == 0
    out = capsys.readouterr().out
    assert "imported: sub-agent 'frontend-developer-3'" in out
    assert "warning: agency-agents/finance-fpa-analyst.md: the name 'FP&A Analyst'" in out
    assert "skipped: README.md: has no header" in out
    assert main(["agent", "show", str(target), "--json", "--no-start"]) == 0
    shown_agents = {sub["name"]: sub for sub in json.loads(capsys.readouterr().out)["subagents"]}
    assert shown_agents["fp-a-analyst"]["displayName"] == "FP&A Analyst"
    assert shown_agents["sql-pro"]["displayName"] is None


def test_files_already_in_subagents_load_leniently_with_warnings(tmp_path: Path) -> None:
    root = create_agent(tmp_path / "agent").root
    (root / "subagents").mkdir()
    for file in (
        "contains-studio/ui-designer.md",
        "agency-agents/zk-steward.md",
        "voltagent/powershell-5.1-expert.md",
    ):
        shutil.copy(CORPUS / file, root / "subagents")
    problems: list[Problem] = []
    subagents = load_subagents(root, problems)
    assert sorted(subagents) == ["powershell-5-1-expert", "ui-designer", "zk-steward"]
    assert all(p.severity == "warning" for p in problems), [p.describe() for p in problems]
    assert any("read line by line" in p.message for p in problems if p.path.name == "zk-steward.md")
    assert any("'ZK Steward' kept as its display name" in p.message for p in problems)


def test_sub_agents_read_leniently_run_with_their_prompt(project: Path, tmp_path: Path) -> None:
    target = create_agent(tmp_path / "agent").root
    import_source(project, target)
    agent = load_agent(target)
    agent.config.chat.model = "scripted:parent"
    provider = ScriptedProvider()
    store = ChatStore(tmp_path / "chats.sqlite3")

    tools = PythonTools([Tool("workspace", "read_file", "Read a file")])
    run = delegation_runner(agent, store, provider, tools, "go")

    # A header read line by line, a name made valid, a header added, a name numbered.
    for name in ("ui-designer", "fp-a-analyst", "visual-qa", "frontend-developer-2"):
        provider.enqueue_reply(f"{name} done")
        delegation = asyncio.run(asyncio.wait_for(run(name), 10))
        assert delegation.result == f"{name} done" and not delegation.stopped_by, delegation
        system = provider.requests[-1].messages[0]
        assert system.role == "system" and agent.subagents[name].prompt[:200] in str(system.content)
    store.close()
