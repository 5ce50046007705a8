"""Sub-agent files: Claude Code's agent files load unchanged (their tools mapped or reported),
ContextDesk's own fields are validated with located problems, and tool patterns decide what a
child may use."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_core.agent.items import Problem
from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.agent.subagent_files.definition import Subagent, SubagentLimits, tool_allowed
from agent_core.agent.subagent_files.loader import load_subagent
from agent_core.agent.subagent_files.tool_names import tool_patterns

CLAUDE_AGENTS = Path(__file__).parents[2] / "fixtures" / "claude_agents"


def load(path: Path) -> tuple[Subagent | None, list[Problem]]:
    problems: list[Problem] = []
    return load_subagent(path, problems), problems


@pytest.mark.parametrize("path", sorted(CLAUDE_AGENTS.glob("*.md")), ids=lambda p: p.stem)
def test_every_claude_code_agent_file_loads_with_warnings_only(path: Path) -> None:
    subagent, problems = load(path)
    assert subagent is not None, [p.describe() for p in problems]
    assert subagent.name == path.stem and subagent.description and subagent.prompt
    assert all(p.severity == "warning" for p in problems), [p.describe() for p in problems]


def test_claude_tools_map_to_workspace_tools_and_the_rest_are_reported() -> None:
    reviewer, problems = load(CLAUDE_AGENTS / "code-reviewer.md")
    assert reviewer is not None and reviewer.model == "sonnet"
    assert reviewer.tools == ("workspace.read_file", "workspace.list_files", "workspace.search_files")
    assert reviewer.unsupported_tools == ("Bash",)
    [warning] = problems
    assert "Bash have no ContextDesk counterpart" in warning.message and warning.line == 4

    historian, _ = load(CLAUDE_AGENTS / "git-historian.md")
    assert historian is not None
    assert historian.tools == ("git.git_log", "git.git_show", "workspace.read_file")
    keeper, _ = load(CLAUDE_AGENTS / "time-keeper.md")
    assert keeper is not None and keeper.tools == ("time.*",)
    runner, _ = load(CLAUDE_AGENTS / "shell-runner.md")
    assert runner is not None and runner.tools == ("workspace.read_file",)
    assert runner.unsupported_tools == ("Bash(pytest:*)", "Bash(git diff:*)")


def test_no_tools_means_every_tool_of_the_parent_and_disallowed_wins() -> None:
    researcher, _ = load(CLAUDE_AGENTS / "docs-researcher.md")
    assert researcher is not None and researcher.tools is None
    assert tool_allowed(researcher, "workspace", "read_file") and tool_allowed(researcher, "git", "git_log")
    architect, _ = load(CLAUDE_AGENTS / "frontend-architect.md")
    assert architect is not None and architect.tools is None and architect.disallowed_tools == ()
    narrowed = Subagent(
        "x", "d", "p", tools=("workspace.*", "git.git_log"), disallowed_tools=("workspace.read_*",)
    )
    assert tool_allowed(narrowed, "workspace", "list_files")
    assert not tool_allowed(narrowed, "workspace", "read_file")  # disallowedTools wins
    assert tool_allowed(narrowed, "git", "git_log") and not tool_allowed(narrowed, "git", "git_show")


def test_claude_only_and_unknown_keys_are_warnings_on_their_line() -> None:
    planner, problems = load(CLAUDE_AGENTS / "planner.md")
    assert planner is not None and planner.model == "opus"
    messages = {p.message.split(" ")[0]: p for p in problems}
    assert "'color'" in messages and messages["'color'"].line == 6
    assert "'hooks'" in messages and "'effort'" in messages
    verifier, problems = load(CLAUDE_AGENTS / "verifier.md")
    assert verifier is not None
    [unknown] = [p for p in problems if "unknown key" in p.message]
    assert "'level'" in unknown.message and unknown.line == 5 and unknown.severity == "warning"


def test_descriptions_are_one_line_and_limits_come_from_either_place() -> None:
    architect, _ = load(CLAUDE_AGENTS / "frontend-architect.md")
    assert architect is not None and "\n" not in architect.description
    notes, _ = load(CLAUDE_AGENTS / "release-notes-writer.md")
    assert notes is not None and notes.limits == SubagentLimits(max_turns=8)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_contextdesk_fields_are_validated_with_the_line_and_the_fix(tmp_path: Path) -> None:
    good = write(
        tmp_path,
        "researcher",
        "---\nname: researcher\ndescription: Reads many files to answer one question\n"
        "tools: [workspace.read_*, workspace.list_files]\ndisallowedTools: [workspace.read_secret]\n"
        "rules: [cite-sources]\nreferences: handbook, glossary\ncontext: fork\n"
        "output:\n  type: object\n  properties: {answer: {type: string}}\n  required: [answer]\n"
        "limits: {maxTurns: 4, maxTokens: 20000, timeoutSeconds: 60, maxDepth: 2, maxParallel: 2}\n"
        "model: local:smollm2\n---\nAnswer with sources.\n",
    )
    subagent, problems = load(good)
    assert problems == [] and subagent is not None
    assert subagent.tools == ("workspace.read_*", "workspace.list_files")
    assert subagent.references == ("handbook", "glossary") and subagent.context == "fork"
    assert subagent.limits == SubagentLimits(4, 20_000, 60.0, 2, 2)
    assert subagent.output_schema is not None and subagent.output_schema["required"] == ["answer"]

    bad = write(
        tmp_path,
        "broken",
        "---\nname: broken\ndescription: x\ncontext: shared\n"
        "output: {type: objekt}\nlimits: {maxTurns: 0}\n---\nx\n",
    )
    subagent, problems = load(bad)
    assert subagent is None
    by_line = {p.line: p for p in problems}
    assert set(by_line) == {4, 5, 6}
    assert "isolated" in by_line[4].message + by_line[4].fix and "left out" in by_line[4].fix
    assert "not a valid JSON schema" in by_line[5].message


def test_an_agent_folder_loads_its_subagents_and_reports_broken_ones(tmp_path: Path) -> None:
    root = create_agent(tmp_path / "agent").root
    folder = root / "subagents"
    folder.mkdir()
    shutil.copy(CLAUDE_AGENTS / "code-reviewer.md", folder)
    write(folder, "no-header", "Just text.\n")
    write(folder, "Code-Reviewer2", "---\nname: code-reviewer\ndescription: twin\n---\nx\n")
    agent = load_agent(root)
    assert list(agent.subagents) == ["code-reviewer"]
    errors = [p for p in agent.problems if p.severity == "error"]
    assert {p.path.name for p in errors} == {"no-header.md", "Code-Reviewer2.md"}
    assert any("names differ only in case" in p.message and "code-reviewer.md" in p.message for p in errors)


def test_tool_patterns_keep_contextdesk_names_and_widen_bare_ones() -> None:
    assert tool_patterns(["workspace.read_*", "current_time", "mcp__git"]) == (
        ("workspace.read_*", "*.current_time", "git.*"),
        (),
    )


def test_model_names_map_through_the_agents_aliases_or_fall_back_to_the_parents(tmp_path: Path) -> None:
    from agent_core.subagents.runner import resolve_model

    agent = load_agent(create_agent(tmp_path / "agent").root)
    agent.config.model_aliases = {"sonnet": "anthropic:claude-sonnet-4-5"}

    def model(name: str) -> tuple[str, str]:
        return resolve_model(Subagent("x", "d", "p", model=name), agent, "local:smollm2")

    assert model("inherit") == ("local:smollm2", "")
    assert model("sonnet") == ("anthropic:claude-sonnet-4-5", "")
    assert model("openai:gpt-5-mini") == ("openai:gpt-5-mini", "")
    used, note = model("opus")
    assert used == "local:smollm2" and "modelAliases does not name it" in note
