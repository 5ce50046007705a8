"""Loading agent folders: valid parts load, each broken part becomes a located, fixable problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.agent import IncludeMode, load_agent
from agent_core.agent.items import DocumentItem
from agent_core.agent.scaffold import create_agent
from agent_core.agent.schema import StdioServerConfig, StreamableHttpServerConfig
from agent_core.agent.writer import render_agent_config, save_agent_config, save_document
from agent_core.errors import AgentFileError
from tests.support.agent_files import write

GOOD_RULE = """---
name: good
description: A valid rule
priorityLevel: 10
include: always
---

Be kind.
"""


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    write(root / "agent.yaml", "name: Test agent\n")
    write(root / "rules" / "good.md", GOOD_RULE)
    return root


def problems_for(root: Path, file_name: str) -> list[str]:
    agent = load_agent(root)
    return [p.describe(root) for p in agent.problems if p.path.name == file_name]


def test_the_default_agent_loads_without_problems(tmp_path: Path) -> None:
    agent = create_agent(tmp_path / "new")
    assert agent.problems == []
    assert agent.rules["clear-answers"].include is IncludeMode.ALWAYS
    assert agent.config.chat.model == "local:smollm2-135m-instruct"
    assert {"using-contextdesk", "markdown-cheatsheet"} <= set(agent.references)


def test_an_agent_round_trips_through_its_files_unchanged(tmp_path: Path) -> None:
    original = create_agent(tmp_path / "a")
    original.config.chat.temperature = 0.1
    original.config.selection.top_n = 3
    original.config.mcp_servers["time"] = StdioServerConfig(command="uvx", args=["mcp-server-time"])
    original.config.providers = {}
    save_agent_config(original)
    save_document(
        original.root,
        DocumentItem(
            kind="reference",
            name="notes",
            description="d: with colon",
            priority_level=7,
            include=IncludeMode.AGENT,
            text="# Notes\n\n---\n\nA line that is a fence.\n",
            examples=("what did we decide about the launch date?", "who owns: billing"),
        ),
    )
    first = load_agent(original.root)
    save_agent_config(first)
    for item in [*first.rules.values(), *first.references.values()]:
        save_document(first.root, item)
    second = load_agent(original.root)
    assert second.problems == []
    assert second.config == first.config
    assert second.rules == first.rules
    assert second.references == first.references
    assert second.references["notes"].text == "# Notes\n\n---\n\nA line that is a fence.\n"
    assert second.config.chat.temperature == 0.1


def test_saving_writes_back_only_what_the_user_wrote(tmp_path: Path) -> None:
    root = tmp_path / "minimal"
    write(root / "agent.yaml", "name: Minimal\nchat:\n  temperature: 0.2\n")
    agent = load_agent(root)
    assert render_agent_config(agent.config) == "name: Minimal\nchat:\n  temperature: 0.2\n"


def test_a_missing_folder_or_agent_file_is_refused_with_the_command_that_fixes_it(tmp_path: Path) -> None:
    with pytest.raises(AgentFileError, match="contextdesk agent new"):
        load_agent(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(AgentFileError, match=r"has no agent\.yaml"):
        load_agent(tmp_path / "empty")


# --- a dozen kinds of broken file -----------------------------------------------------------


def test_agent_yaml_with_a_syntax_error_reports_the_line_and_still_loads_items(agent_dir: Path) -> None:
    write(agent_dir / "agent.yaml", "name: Broken\nchat:\n  temperature: [0.5\n")
    agent = load_agent(agent_dir)
    assert "good" in agent.rules
    assert agent.name == "agent"  # the folder name stands in
    [problem] = agent.problems
    assert problem.line is not None and problem.line >= 3
    assert "invalid YAML" in problem.message and problem.fix


def test_an_unknown_key_is_reported_with_a_suggestion(agent_dir: Path) -> None:
    write(agent_dir / "agent.yaml", "name: A\nsystemPromt: hello\nchat:\n  temprature: 0.3\n")
    agent = load_agent(agent_dir)
    messages = [(p.line, p.message, p.fix) for p in agent.problems]
    assert (2, "unknown key 'systemPromt'", "did you mean 'systemPrompt'?") in messages
    assert any(line == 4 and "temprature" in msg and "temperature" in fix for line, msg, fix in messages)


def test_a_bad_setting_falls_back_to_its_default_and_keeps_the_others(agent_dir: Path) -> None:
    write(agent_dir / "agent.yaml", "name: A\nchat:\n  temperature: 7\n  maxChatTurns: 5\n  topP: lots\n")
    agent = load_agent(agent_dir)
    assert agent.config.chat.max_chat_turns == 5
    assert agent.config.chat.temperature == 0.5
    assert agent.config.chat.top_p == 0.9
    lines = sorted(p.line for p in agent.problems if p.line)
    assert lines == [3, 5]


def test_a_broken_mcp_server_is_left_out_but_kept_on_disk(agent_dir: Path) -> None:
    write(
        agent_dir / "agent.yaml",
        "name: A\nmcpServers:\n  good:\n    command: uvx\n    args: [mcp-server-time]\n"
        "  remote:\n    url: http://127.0.0.1:8000/mcp\n"
        "  broken:\n    type: stdio\n    args: [x]\n"
        "  wrong-type:\n    type: websocket\n    url: ws://x\n",
    )
    agent = load_agent(agent_dir)
    assert isinstance(agent.config.mcp_servers["good"], StdioServerConfig)
    assert isinstance(agent.config.mcp_servers["remote"], StreamableHttpServerConfig)
    assert set(agent.unparsed_servers) == {"broken", "wrong-type"}
    described = " | ".join(p.describe() for p in agent.problems)
    assert "mcpServers.broken: 'command' is required" in described
    assert "'type' must be one of" in described
    save_agent_config(agent)
    assert set(load_agent(agent_dir).unparsed_servers) == {"broken", "wrong-type"}


def test_a_rule_with_an_unclosed_header_is_left_out_and_the_others_load(agent_dir: Path) -> None:
    write(agent_dir / "rules" / "open.md", "---\nname: open\ninclude: always\nText without a closing fence\n")
    agent = load_agent(agent_dir)
    assert set(agent.rules) == {"good"}
    assert problems_for(agent_dir, "open.md") == [
        "rules/open.md:1: error: the header opened with '---' on line 1 is never closed. "
        "Fix: add a line with just '---' after the header"
    ]


def test_a_header_with_invalid_yaml_reports_the_file_line(agent_dir: Path) -> None:
    write(agent_dir / "rules" / "bad.md", "---\nname: bad\ndescription: [unclosed\n---\nBody\n")
    [problem] = problems_for(agent_dir, "bad.md")
    assert problem.startswith("rules/bad.md:")
    assert "invalid YAML" in problem


def test_an_invalid_include_mode_names_the_allowed_values(agent_dir: Path) -> None:
    write(agent_dir / "references" / "doc.md", "---\ninclude: sometimes\n---\nText\n")
    agent = load_agent(agent_dir)
    assert "doc" not in agent.references
    [problem] = problems_for(agent_dir, "doc.md")
    assert "references/doc.md:2" in problem and "'always', 'manual' or 'agent'" in problem


def test_a_priority_out_of_range_is_reported(agent_dir: Path) -> None:
    write(agent_dir / "rules" / "loud.md", "---\npriorityLevel: 1500\n---\nText\n")
    [problem] = problems_for(agent_dir, "loud.md")
    assert "rules/loud.md:2" in problem and "priorityLevel" in problem and "999" in problem


def test_an_unknown_header_key_is_reported_with_a_suggestion(agent_dir: Path) -> None:
    write(agent_dir / "rules" / "typo.md", "---\ndescripton: oops\n---\nText\n")
    [problem] = problems_for(agent_dir, "typo.md")
    assert "unknown key 'descripton'" in problem and "did you mean 'description'?" in problem


def test_an_unsafe_file_name_is_refused_with_a_safe_suggestion(agent_dir: Path) -> None:
    write(agent_dir / "rules" / "my rule!.md", "---\ninclude: manual\n---\nText\n")
    [problem] = problems_for(agent_dir, "my rule!.md")
    assert "rename the file to my-rule.md" in problem


def test_a_file_that_is_not_utf8_is_reported(agent_dir: Path) -> None:
    write(agent_dir / "rules" / "latin.md", "---\ninclude: manual\n---\nCaf\xe9\n".encode("latin-1"))
    [problem] = problems_for(agent_dir, "latin.md")
    assert "not UTF-8" in problem and "save the file as UTF-8" in problem


def test_a_header_that_is_a_list_is_reported(agent_dir: Path) -> None:
    write(agent_dir / "rules" / "list.md", "---\n- a\n- b\n---\nText\n")
    [problem] = problems_for(agent_dir, "list.md")
    assert "must be a mapping" in problem


def test_a_name_that_differs_from_the_file_name_is_a_warning_and_the_file_name_wins(agent_dir: Path) -> None:
    write(agent_dir / "rules" / "actual.md", "---\nname: other\n---\nText\n")
    agent = load_agent(agent_dir)
    assert "actual" in agent.rules
    [problem] = [p for p in agent.problems if p.path.name == "actual.md"]
    assert problem.severity == "warning" and problem.line == 2


def test_a_file_without_header_loads_as_manual_with_a_warning(agent_dir: Path) -> None:
    write(agent_dir / "references" / "plain.md", "# Just markdown\n\nNo header here.\n")
    agent = load_agent(agent_dir)
    assert agent.references["plain"].include is IncludeMode.MANUAL
    assert agent.references["plain"].text.startswith("# Just markdown")
    assert [p.severity for p in agent.problems] == ["warning"]


def test_names_that_differ_only_in_case_keep_the_first(agent_dir: Path) -> None:
    write(agent_dir / "rules" / "Good.md", GOOD_RULE.replace("name: good", "name: Good"))
    agent = load_agent(agent_dir)
    assert len(agent.rules) == 1
    assert any("differ only in case" in p.message for p in agent.problems)


def test_other_files_in_item_folders_are_mentioned_not_loaded(agent_dir: Path) -> None:
    write(agent_dir / "rules" / "notes.txt", "hello")
    write(agent_dir / "rules" / ".hidden.md", "hidden")
    agent = load_agent(agent_dir)
    assert set(agent.rules) == {"good"}
    assert [p.path.name for p in agent.problems] == ["notes.txt"]


def test_duplicate_keys_are_warned_about(agent_dir: Path) -> None:
    write(agent_dir / "agent.yaml", "name: A\nname: B\n")
    agent = load_agent(agent_dir)
    assert agent.name == "B"
    assert any(p.line == 2 and "given twice" in p.message for p in agent.problems)


def test_an_unset_env_key_is_a_warning_naming_the_variable(
    agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CD_TEST_MISSING_KEY", raising=False)
    write(agent_dir / "agent.yaml", "name: A\nproviders:\n  openai:\n    apiKey: env://CD_TEST_MISSING_KEY\n")
    agent = load_agent(agent_dir)
    assert agent.config.providers["openai"].api_key == "env://CD_TEST_MISSING_KEY"
    [problem] = agent.problems
    assert problem.severity == "warning" and "CD_TEST_MISSING_KEY" in problem.message


def test_an_empty_agent_yaml_reports_the_missing_name(agent_dir: Path) -> None:
    write(agent_dir / "agent.yaml", "")
    agent = load_agent(agent_dir)
    assert agent.name == "agent"
    assert any("no name" in p.message for p in agent.problems)


def test_an_agent_mode_item_with_a_thin_description_and_no_examples_gets_a_warning(tmp_path: Path) -> None:
    root = create_agent(tmp_path / "a").root
    (root / "rules" / "regex.md").write_text("---\ndescription: Regexes\ninclude: agent\n---\nName groups.\n")
    (root / "rules" / "shell.md").write_text(
        "---\ndescription: Shell\ninclude: agent\nexamples:\n  - write a cron job that rotates logs\n---\nUse set -eu.\n"
    )
    [problem] = [p for p in load_agent(root).problems if "too thin" in p.message]
    assert problem.path.name == "regex.md" and problem.line == 2 and problem.severity == "warning"
    assert "add examples:" in problem.fix
