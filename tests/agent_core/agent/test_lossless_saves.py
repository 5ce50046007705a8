"""Saving agent files changes only what the user changed; files the loader cannot read are refused."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from agent_core.agent import IncludeMode, load_agent
from agent_core.agent.items import DocumentItem
from agent_core.agent.schema import AgentConfig, ProviderConfig
from agent_core.agent.writer import save_agent_config, save_document
from agent_core.cli.main import main
from agent_core.errors import AgentFileError
from desktop.controllers.agent_config import save_config_change

HAND_WRITTEN = """\
# My agent, written by hand and kept in git
name: 'Hand Written'   # single-quoted
description: "double \\"quoted\\" é"
systemPrompt: |
  You are helpful.
    An indented line.

  After a blank line.
chat:
  model:   openai:gpt-4o-mini    # odd spacing
  temperatur: 0.3   # misspelt, kept
  temperature: 7    # out of range, kept
selection: {topK: 20, topN: 5}   # flow style
defaults: &defs
  permissionRequired: false
mcpServers:
  time:
    command: uvx
    args:
    - mcp-server-time
    toolDefaults: *defs
folded: >-
  some folded
  text here
unknownKey: ~
"""


def unified_diff(before: str, after: str) -> list[str]:
    lines = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
    return [line for line in lines if not line.startswith(("---", "+++", "@@"))]


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    root.mkdir()
    (root / "agent.yaml").write_text(HAND_WRITTEN, encoding="utf-8")
    return root


def test_agent_set_of_one_key_changes_exactly_that_line(agent_dir: Path) -> None:
    assert main(["agent", "set", str(agent_dir), "selection.topN", "3"]) == 0
    after = (agent_dir / "agent.yaml").read_text(encoding="utf-8")
    assert unified_diff(HAND_WRITTEN, after) == [
        "-selection: {topK: 20, topN: 5}   # flow style",
        "+selection: {topK: 20, topN: 3}   # flow style",
    ]


def test_agent_set_of_a_nested_server_key_adds_one_line_and_keeps_the_anchor(agent_dir: Path) -> None:
    assert main(["agent", "set", str(agent_dir), "mcpServers.time.enabled", "false"]) == 0
    after = (agent_dir / "agent.yaml").read_text(encoding="utf-8")
    assert unified_diff(HAND_WRITTEN, after) == ["+    enabled: false"]
    agent = load_agent(agent_dir)
    assert agent.config.mcp_servers["time"].enabled is False
    assert agent.config.mcp_servers["time"].tool_defaults.permission_required is False


def test_agent_set_replacing_the_out_of_range_value_changes_that_line_only(agent_dir: Path) -> None:
    assert main(["agent", "set", str(agent_dir), "chat.temperature", "0.9"]) == 0
    after = (agent_dir / "agent.yaml").read_text(encoding="utf-8")
    assert unified_diff(HAND_WRITTEN, after) == [
        "-  temperature: 7    # out of range, kept",
        "+  temperature: 0.9  # out of range, kept",
    ]


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("selection.topN", "300", "Valid: an integer >= 0 and <= 100"),
        ("chat.toolPermission", "Ask", "Valid: one of tool, ask, allow"),
        ("selection.topn", "3", "did you mean 'topN'?"),
        ("chat.modle", "a:b", "known keys at chat: model, maxChatTurns"),
        ("mcpServers.nope.enabled", "false", "there is no MCP server 'nope'"),
    ],
)
def test_agent_set_with_a_bad_key_or_value_leaves_the_file_byte_identical_and_says_the_fix(
    agent_dir: Path, capsys: pytest.CaptureFixture[str], key: str, value: str, expected: str
) -> None:
    before = (agent_dir / "agent.yaml").read_bytes()
    assert main(["agent", "set", str(agent_dir), key, value]) == 1
    assert (agent_dir / "agent.yaml").read_bytes() == before
    assert expected in capsys.readouterr().err


def test_agent_get_prints_nested_values_defaults_and_refuses_missing_keys(
    agent_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["agent", "get", str(agent_dir), "chat.model"]) == 0
    assert capsys.readouterr().out == "openai:gpt-4o-mini\n"
    assert main(["agent", "get", str(agent_dir), "mcpServers.time.args"]) == 0
    assert capsys.readouterr().out == "- mcp-server-time\n"
    assert main(["agent", "get", str(agent_dir), "selection"]) == 0
    assert capsys.readouterr().out == "topK: 20\ntopN: 5\n"
    assert main(["agent", "get", str(agent_dir), "context.keepToolRounds"]) == 0
    output = capsys.readouterr()
    assert output.out == "2\n"
    assert "not set" in output.err and "default" in output.err
    assert main(["agent", "get", str(agent_dir), "chat.temperature"]) == 0
    output = capsys.readouterr()
    assert output.out == "7\n"
    assert "less than or equal to 2" in output.err
    assert main(["agent", "get", str(agent_dir), "mcpServers.nope.command"]) == 1
    assert "no MCP server 'nope'" in capsys.readouterr().err
    assert main(["agent", "get", str(agent_dir), "nope"]) == 1
    assert "known keys at the top level" in capsys.readouterr().err


def test_a_settings_change_from_the_desktop_changes_exactly_that_line(agent_dir: Path) -> None:
    agent = load_agent(agent_dir)
    assert any("temperatur" in problem.message for problem in agent.problems)

    def change(config):  # type: ignore[no-untyped-def]
        config.chat.model = "anthropic:claude-haiku"

    save_config_change(agent, change)
    after = (agent_dir / "agent.yaml").read_text(encoding="utf-8")
    assert unified_diff(HAND_WRITTEN, after) == [
        "-  model:   openai:gpt-4o-mini    # odd spacing",
        "+  model: anthropic:claude-haiku  # odd spacing",
    ]


def test_saving_an_unchanged_agent_keeps_every_byte(agent_dir: Path) -> None:
    before = (agent_dir / "agent.yaml").read_bytes()
    save_agent_config(load_agent(agent_dir))
    assert (agent_dir / "agent.yaml").read_bytes() == before


def test_removing_a_server_from_the_desktop_keeps_the_rest(agent_dir: Path) -> None:
    agent = load_agent(agent_dir)

    def change(config):  # type: ignore[no-untyped-def]
        config.mcp_servers = {}

    save_config_change(agent, change)
    after = (agent_dir / "agent.yaml").read_text(encoding="utf-8")
    assert "time:" not in after
    assert "temperatur: 0.3   # misspelt, kept" in after
    assert "defaults: &defs" in after


def test_an_edit_inside_an_aliased_mapping_changes_only_that_place(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    root.mkdir()
    text = (
        "name: A\nmcpServers:\n  one:\n    command: a\n    toolDefaults: &defs\n      include: agent\n"
        "  two:\n    command: b\n    toolDefaults: *defs\n"
    )
    (root / "agent.yaml").write_text(text)
    assert main(["agent", "set", str(root), "mcpServers.two.toolDefaults.include", "manual"]) == 0
    agent = load_agent(root)
    assert agent.config.mcp_servers["one"].tool_defaults.include == IncludeMode.AGENT
    assert agent.config.mcp_servers["two"].tool_defaults.include == IncludeMode.MANUAL


def test_crlf_and_a_byte_order_mark_are_kept(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    root.mkdir()
    original = "\ufeffname: A\r\n# note é\r\nchat:\r\n  model: a:b\r\n".encode()
    (root / "agent.yaml").write_bytes(original)
    assert main(["agent", "set", str(root), "chat.model", "c:d"]) == 0
    assert (root / "agent.yaml").read_bytes() == original.replace(b"a:b", b"c:d")


@pytest.mark.parametrize(
    ("content", "line"),
    [
        (b"name: A\nchat:\n  model: x\n   bad: indent\n", 4),
        (b"name: A\ndescription: caf\xe9\n", 2),
        (b"- a\n- b\n", 1),
    ],
    ids=["yaml-error", "latin-1", "a-list"],
)
def test_every_save_path_refuses_a_file_the_loader_could_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, line: int
) -> None:
    root = tmp_path / "agent"
    root.mkdir()
    path = root / "agent.yaml"
    path.write_bytes(content)
    agent = load_agent(root)
    assert agent.errors

    with pytest.raises(AgentFileError, match=rf"agent\.yaml:{line}: "):
        save_agent_config(agent)

    def change(config):  # type: ignore[no-untyped-def]
        config.chat.temperature = 0.1

    with pytest.raises(AgentFileError, match="left as it is"):
        save_config_change(agent, change)
    assert main(["agent", "set", str(root), "chat.temperature", "0.1"]) == 1
    assert f"agent.yaml:{line}" in capsys.readouterr().err
    assert path.read_bytes() == content


RULE = (
    "---\r\n# header comment\r\nname: tone\r\ndescription: 'Écrire avec soin'\r\npriorityLevel: 10\r\n"
    "include: agent\r\n---\r\n\r\nBody with non-ASCII: ünïcödé\r\nSecond line\r\n"
)


def test_a_rule_header_edited_from_the_app_changes_exactly_one_line(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    (root / "rules").mkdir(parents=True)
    (root / "agent.yaml").write_text("name: A\n")
    path = root / "rules" / "tone.md"
    path.write_bytes(RULE.encode())
    loaded = load_agent(root).rules["tone"]
    edited = DocumentItem(
        kind="rule",
        name=loaded.name,
        description=loaded.description,
        priority_level=20,
        include=loaded.include,
        text=loaded.text,
    )
    save_document(root, edited)
    after = path.read_bytes().decode()
    assert after == RULE.replace("priorityLevel: 10", "priorityLevel: 20")


def test_a_rule_with_a_broken_header_is_not_written_over(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    (root / "rules").mkdir(parents=True)
    path = root / "rules" / "tone.md"
    original = b"---\nname: tone\ndescription: [unclosed\n---\nBody\n"
    path.write_bytes(original)
    with pytest.raises(AgentFileError, match=r"tone\.md:4"):
        save_document(root, DocumentItem(kind="rule", name="tone", text="new"))
    assert path.read_bytes() == original


def test_agent_import_into_an_agent_with_a_broken_agent_yaml_refuses_and_keeps_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "agent"
    root.mkdir()
    original = b"name: A\nsystemPrompt: keep me\nchat:\n  model: x\n   bad: indent\n"
    (root / "agent.yaml").write_bytes(original)
    source = tmp_path / "project"
    (source / ".cursor" / "rules").mkdir(parents=True)
    (source / ".cursor" / "rules" / "style.mdc").write_text("---\nalwaysApply: true\n---\nBe brief.\n")
    assert main(["agent", "import", str(source), str(root)]) == 1
    assert "agent.yaml:5" in capsys.readouterr().err
    assert (root / "agent.yaml").read_bytes() == original
    assert not (root / "rules").exists()


def test_removing_a_server_keeps_the_comment_written_above_the_next_one(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    root.mkdir()
    text = (
        "name: A\nmcpServers:\n  # the clock\n  time:\n    command: uvx\n    # args: [x]\n\n"
        "  # the repository\n  git:\n    command: y\n"
    )
    (root / "agent.yaml").write_text(text)
    agent = load_agent(root)

    def change(config):  # type: ignore[no-untyped-def]
        del config.mcp_servers["time"]

    save_config_change(agent, change)
    after = (root / "agent.yaml").read_text()
    assert unified_diff(text, after) == ["-  time:", "-    command: uvx", "-    # args: [x]"]


def test_a_setting_a_form_leaves_empty_is_removed_not_written_as_null(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    root.mkdir()
    text = (
        "name: Local\nproviders:\n  ollama:   # my server\n    type: openai-compatible\n"
        "    baseUrl: http://localhost:11434/v1\n    visionModels: [llava*]\n"
    )
    (root / "agent.yaml").write_text(text, encoding="utf-8")
    agent = load_agent(root)

    def clear_vision(config: AgentConfig) -> None:
        values = config.providers["ollama"].model_dump(exclude_unset=True)
        del values["vision_models"]
        config.providers = {"ollama": ProviderConfig.model_validate(values)}

    save_config_change(agent, clear_vision)
    after = (root / "agent.yaml").read_text(encoding="utf-8")
    assert unified_diff(text, after) == ["-    visionModels: [llava*]"]
