"""Hostile agent folders: an agent folder cloned from someone else is untrusted input.

Every case loads (the agent opens, the valid parts work) and reports what is wrong as a Problem
with its file and a fix; nothing outside the folder is read, nothing blocks, nothing explodes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from agent_core.agent import load_agent
from agent_core.agent.document_loader import MAX_ITEM_BYTES
from agent_core.agent.schema import InternalServerConfig, ToolPermissionPolicy
from agent_core.agent.writer import save_agent_config
from agent_core.cli.main import main
from agent_core.errors import AgentFileError, ContextDeskError
from agent_core.mcp import McpManager
from agent_core.store.chats import ChatStore
from tests.support.agent_files import write

T = TypeVar("T")
RULE = "---\ninclude: always\n---\n\nBe kind.\n"


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    write(root / "agent.yaml", "name: Cloned\n")
    write(root / "rules" / "good.md", RULE)
    return root


def described(root: Path, file_name: str) -> list[str]:
    agent = load_agent(root)
    return [p.describe(root) for p in agent.problems if p.path.name == file_name]


# --- symlinks out of the agent folder ----------------------------------------------------------


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    return write(tmp_path / "home" / "secret.md", "---\ninclude: always\n---\n\nSSH key: hunter2\n")


def test_a_reference_linking_outside_the_folder_is_refused_and_reported(
    agent_dir: Path, secret: Path
) -> None:
    (agent_dir / "references").mkdir()
    (agent_dir / "references" / "leak.md").symlink_to(secret)
    (agent_dir / "rules" / "leak.md").symlink_to(secret)
    agent = load_agent(agent_dir)
    assert "leak" not in agent.references and "leak" not in agent.rules
    assert "good" in agent.rules
    shown = [p.describe(agent_dir) for p in agent.problems if p.path.name == "leak.md"]
    assert len(shown) == 2
    assert all("outside the agent folder" in s and "copy the file into the agent folder" in s for s in shown)
    assert all("hunter2" not in item.text for item in [*agent.rules.values(), *agent.references.values()])


def test_a_link_inside_the_folder_still_works(agent_dir: Path) -> None:
    (agent_dir / "rules" / "alias.md").symlink_to(agent_dir / "rules" / "good.md")
    assert load_agent(agent_dir).rules["alias"].text.strip() == "Be kind."


def test_a_linked_folder_outside_is_refused_file_by_file(agent_dir: Path, secret: Path) -> None:
    (agent_dir / "references").symlink_to(secret.parent, target_is_directory=True)
    agent = load_agent(agent_dir)
    assert agent.references == {}
    assert any("outside the agent folder" in p.message for p in agent.problems)


def test_an_agent_yaml_linking_outside_is_not_read_nor_saved_through(agent_dir: Path, tmp_path: Path) -> None:
    outside = write(tmp_path / "elsewhere.yaml", "name: Elsewhere\nsystemPrompt: private notes\n")
    (agent_dir / "agent.yaml").unlink()
    (agent_dir / "agent.yaml").symlink_to(outside)
    agent = load_agent(agent_dir)
    assert agent.config.system_prompt == ""
    assert any(p.path.name == "agent.yaml" and "outside the agent folder" in p.message for p in agent.errors)
    agent.config.description = "changed"
    with pytest.raises(AgentFileError, match="outside the agent folder"):
        save_agent_config(agent)
    assert outside.read_text(encoding="utf-8") == "name: Elsewhere\nsystemPrompt: private notes\n"


@pytest.mark.anyio
async def test_the_references_server_never_serves_a_file_linked_from_outside(
    agent_dir: Path, secret: Path
) -> None:
    write(agent_dir / "references" / "faq.md", "Ask us.\n")
    (agent_dir / "references" / "leak.md").symlink_to(secret)
    agent = load_agent(agent_dir)
    server = InternalServerConfig(type="internal", tool="references")
    async with McpManager({"refs": server}, references_source=lambda: agent.references) as manager:
        listed = await manager.call_tool("refs", "list_references", {})
        read = await manager.call_tool("refs", "read_reference", {"name": "leak"})
    assert "leak" not in listed.text
    assert read.is_error and "hunter2" not in read.text


# --- settings that govern permissions fail closed ----------------------------------------------


@pytest.mark.parametrize("value", ["Ask", "allways", "'yes'", "[ask]", "3"])
def test_an_invalid_tool_permission_asks_before_every_tool_call(agent_dir: Path, value: str) -> None:
    write(agent_dir / "agent.yaml", f"name: Cloned\nchat:\n  temperature: 0.2\n  toolPermission: {value}\n")
    agent = load_agent(agent_dir)
    assert agent.config.chat.tool_permission is ToolPermissionPolicy.ASK
    assert agent.config.chat.temperature == 0.2
    shown = described(agent_dir, "agent.yaml")
    assert len(shown) == 1
    assert "agent.yaml:4: error: chat.toolPermission" in shown[0] and "asks for approval" in shown[0]
    assert "write one of tool, ask, allow" in shown[0]


@pytest.mark.parametrize(
    "text",
    ["name: Broken\nchat:\n model: x:y\n  toolPermission: allow\n", "name: [unclosed\n", "chat: ask\n"],
)
def test_an_agent_yaml_that_cannot_be_read_asks_before_every_tool_call(agent_dir: Path, text: str) -> None:
    write(agent_dir / "agent.yaml", text)
    agent = load_agent(agent_dir)
    assert agent.errors
    assert agent.config.chat.tool_permission is ToolPermissionPolicy.ASK


def test_an_invalid_permission_required_requires_approval(agent_dir: Path) -> None:
    write(
        agent_dir / "agent.yaml",
        "name: Cloned\n"
        "mcpServers:\n"
        "  files:\n"
        "    command: files-server\n"
        "    toolDefaults:\n"
        "      permissionRequired: nope\n"
        "    tools:\n"
        "      delete:\n"
        "        permissionRequired: 'false'\n"
        "      read:\n"
        "        permissionRequired: false\n",
    )
    agent = load_agent(agent_dir)
    server = agent.config.mcp_servers["files"]
    assert server.tool_defaults.permission_required is True
    assert server.tools["delete"].permission_required is True
    assert server.tools["read"].permission_required is False
    shown = described(agent_dir, "agent.yaml")
    assert [s.split(": error: ")[0] for s in shown] == ["agent.yaml:6", "agent.yaml:9"]
    assert all("approval is required until it is fixed" in s and "true or false" in s for s in shown)
    # Nothing is written back: the file keeps what the user wrote.
    before = (agent_dir / "agent.yaml").read_bytes()
    save_agent_config(agent)
    assert (agent_dir / "agent.yaml").read_bytes() == before


def test_contextdesk_chat_prints_the_agent_problems_before_chatting(
    agent_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = write(tmp_path / "script.json", json.dumps({"steps": [{"reply": "Hello."}]}))
    write(
        agent_dir / "agent.yaml",
        "name: Cloned\n"
        "chat:\n"
        "  model: scripted:demo\n"
        "  toolPermission: Ask\n"
        f"providers:\n  scripted:\n    options:\n      script: {script}\n",
    )
    code = main(["chat", "--agent", str(agent_dir), "hi"])
    captured = capsys.readouterr()
    assert code == 0 and captured.out.strip() == "Hello."
    lines = captured.err.splitlines()
    assert lines[0].startswith("contextdesk: agent.yaml:4: error: chat.toolPermission: 'Ask'")
    assert "Fix: write one of tool, ask, allow" in lines[0]
    assert "agent check" in lines[1]


def test_contextdesk_chat_refuses_an_agent_whose_agent_yaml_cannot_be_read(
    agent_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One space too few: the campaign's case. Without the file, ContextDesk cannot know the model
    # (a cloud model here) or the MCP servers, so it must not answer with the local model instead.
    write(
        agent_dir / "agent.yaml",
        "name: Work\nchat:\n  model: openai:gpt-4o-mini\n temperature: 0.2\nmcpServers:\n  git: {command: git-mcp}\n",
    )
    code = main(["chat", "--agent", str(agent_dir), "hi"])
    captured = capsys.readouterr()
    assert code != 0 and captured.out == ""
    assert "agent.yaml:4" in captured.err and "will not guess the model and servers" in captured.err
    assert "Traceback" not in captured.err
    store = ChatStore()
    assert all(store.messages(s.id) == [] for s in store.sessions())
    store.close()


# --- files that are not ordinary files -----------------------------------------------------------


def bounded(function: Callable[[], T], timeout: float = 20.0) -> T:
    """``function()`` run in a thread, failing the test (not hanging it) when it does not return."""
    done = threading.Event()
    outcome: list[T] = []
    failure: list[ContextDeskError] = []

    def run() -> None:
        try:
            outcome.append(function())
        except ContextDeskError as error:  # handed to the test, which re-raises it
            failure.append(error)
        finally:
            done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(timeout), f"{function} did not return within {timeout} s"
    if failure:
        raise failure[0]
    assert outcome, "it failed in its thread (see the warning above)"
    return outcome[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_among_the_rules_is_reported_not_read(agent_dir: Path) -> None:
    os.mkfifo(agent_dir / "rules" / "pipe.md")
    agent = bounded(lambda: load_agent(agent_dir))
    assert "pipe" not in agent.rules and "good" in agent.rules
    [shown] = [p.describe(agent_dir) for p in agent.problems if p.path.name == "pipe.md"]
    assert "rules/pipe.md: error: is a named pipe, not an ordinary file" in shown
    assert "replace it with an ordinary text file" in shown


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_as_agent_yaml_is_reported_and_never_saved_over(agent_dir: Path) -> None:
    (agent_dir / "agent.yaml").unlink()
    os.mkfifo(agent_dir / "agent.yaml")
    agent = bounded(lambda: load_agent(agent_dir))
    assert any(p.path.name == "agent.yaml" and "named pipe" in p.message for p in agent.errors)
    assert "good" in agent.rules
    agent.config.description = "changed"
    with pytest.raises(AgentFileError, match="named pipe"):
        bounded(lambda: save_agent_config(agent))


def test_a_reference_larger_than_the_cap_is_reported(agent_dir: Path) -> None:
    write(agent_dir / "references" / "huge.md", b"x" * (MAX_ITEM_BYTES + 1))
    write(agent_dir / "references" / "edge.md", b"y" * MAX_ITEM_BYTES)
    agent = load_agent(agent_dir)
    assert "huge" not in agent.references and len(agent.references["edge"].text) == MAX_ITEM_BYTES
    [shown] = described(agent_dir, "huge.md")
    assert "larger than 5 MB" in shown and "split it into several references" in shown


# --- YAML aliases that expand without end ------------------------------------------------------

BILLION_LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{b}: &{b} [*{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}]\n"
    for a, b in zip("abcdefgh", "bcdefghi", strict=True)
)


def test_a_billion_laughs_agent_yaml_is_refused_before_anything_expands_it(agent_dir: Path) -> None:
    assert len(BILLION_LAUGHS) < 1000  # 10**9 values once expanded
    write(agent_dir / "agent.yaml", "name: Laughs\n" + BILLION_LAUGHS)
    agent = bounded(lambda: load_agent(agent_dir))
    [problem] = [p for p in agent.errors if p.path.name == "agent.yaml"]
    assert "aliases (*name) expand to more than 100,000 values, the limit" in problem.message
    assert "write the values out" in problem.fix
    assert agent.config.name == "agent"  # the fallback, as for any YAML error
    assert agent.config.chat.tool_permission is ToolPermissionPolicy.ASK
    assert "good" in agent.rules


def test_a_billion_laughs_rule_header_is_refused(agent_dir: Path) -> None:
    write(agent_dir / "rules" / "laughs.md", f"---\n{BILLION_LAUGHS}---\n\nHa.\n")
    agent = bounded(lambda: load_agent(agent_dir))
    assert "laughs" not in agent.rules and "good" in agent.rules
    [shown] = described(agent_dir, "laughs.md")
    assert "expand to more than 100,000 values" in shown


def test_an_alias_inside_its_own_anchor_is_refused(agent_dir: Path) -> None:
    write(agent_dir / "agent.yaml", "name: Loop\ndescription: &d [*d]\n")
    agent = bounded(lambda: load_agent(agent_dir))
    assert any("refers to the anchor it is inside" in p.message for p in agent.errors)


def test_saving_over_a_billion_laughs_agent_yaml_is_refused(agent_dir: Path) -> None:
    write(agent_dir / "agent.yaml", "name: Laughs\n" + BILLION_LAUGHS)
    agent = bounded(lambda: load_agent(agent_dir))
    agent.config.description = "changed"
    with pytest.raises(AgentFileError):
        bounded(lambda: save_agent_config(agent))
    assert (agent_dir / "agent.yaml").read_text(encoding="utf-8") == "name: Laughs\n" + BILLION_LAUGHS


def test_ordinary_anchors_and_aliases_still_load(agent_dir: Path) -> None:
    write(
        agent_dir / "agent.yaml",
        "name: Anchors\n"
        "mcpServers:\n"
        "  one: &server\n"
        "    command: run-server\n"
        "    toolDefaults: {permissionRequired: true}\n"
        "  two: *server\n",
    )
    agent = load_agent(agent_dir)
    assert agent.errors == [] and set(agent.config.mcp_servers) == {"one", "two"}


# --- odd entries in rules/ and references/ -----------------------------------------------------


def test_a_nul_byte_in_a_rule_is_reported_and_never_reaches_the_model(agent_dir: Path) -> None:
    write(agent_dir / "rules" / "binary.md", b"---\ninclude: always\n---\n\nBe kind.\nIgnore\x00 this.\n")
    agent = load_agent(agent_dir)
    assert "binary" not in agent.rules
    assert all("\0" not in item.text for item in agent.rules.values())
    [shown] = described(agent_dir, "binary.md")
    assert shown.startswith("rules/binary.md:6: error: contains a NUL character")
    assert "remove the NUL characters" in shown


def test_a_folder_named_like_a_rule_is_reported(agent_dir: Path) -> None:
    (agent_dir / "rules" / "x.md").mkdir()
    (agent_dir / "references" / "assets").mkdir(parents=True)
    agent = load_agent(agent_dir)
    assert "x" not in agent.rules and "good" in agent.rules
    [folder] = [p for p in agent.problems if p.path.name == "x.md"]
    assert folder.severity == "error" and "a folder, not a rule file" in folder.message
    assert "directly in rules/" in folder.fix
    [assets] = [p for p in agent.problems if p.path.name == "assets"]
    assert assets.severity == "warning"


def test_a_rules_file_instead_of_a_folder_is_reported(agent_dir: Path) -> None:
    write(agent_dir / "references", "not a folder\n")
    agent = load_agent(agent_dir)
    [problem] = [p for p in agent.errors if p.path.name == "references"]
    assert "'references' is a file, not a folder, so no reference is read" in problem.message
    assert "create a folder references/" in problem.fix
    assert "good" in agent.rules


def test_importing_a_named_pipe_says_so_instead_of_hanging(tmp_path: Path) -> None:
    pipe = tmp_path / "mcp.json"
    os.mkfifo(pipe)
    cursor_project = tmp_path / "project"
    (cursor_project / ".cursor" / "rules").mkdir(parents=True)
    (cursor_project / ".cursor" / "rules" / "style.mdc").write_text(
        "---\ndescription: style\n---\nBe terse.\n"
    )
    os.mkfifo(cursor_project / ".cursor" / "rules" / "stuck.mdc")
    for source, expected in ((pipe, "named pipe"), (cursor_project, "imported")):
        result = subprocess.run(
            [sys.executable, "-m", "agent_core.cli.main", "agent", "import", str(source), str(tmp_path / f"out-{source.name}")],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert "Traceback" not in result.stderr
        if expected == "named pipe":
            assert result.returncode != 0 and "named pipe" in result.stderr
        else:
            assert result.returncode == 0, result.stderr
            assert "stuck" in result.stdout + result.stderr and "named pipe" in result.stdout + result.stderr
            assert (tmp_path / f"out-{source.name}" / "rules" / "style.md").exists()
