"""An assistant's own MCP servers (``mcp_servers`` with ``resolve_dynamic_values_in_arguments``):
started for its state with arguments from the context store, offered to it (the agent's tools
only when its ``tools:`` lists them), stopped after; a value that would smuggle in an option is refused. Real mcp-server-git."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent_core.agent.items import Problem
from agent_core.agent.workflow_files.check import check_workflow
from agent_core.agent.workflow_files.loader import parse_workflow
from agent_core.chat.events import ApprovalDecision
from tests.support.workflow_runner import Runner, step

HISTORIAN = f"""
inputs:
  repo_path: {{type: string}}
assistants:
  - id: historian
    system_prompt: You read git history.
    mcp_servers:
      - name: repo
        resolve_dynamic_values_in_arguments: true
        config:
          command: {sys.executable}
          args: ["-m", "mcp_server_git", "--repository", "{{{{repo_path}}}}"]
states:
  - id: history
    assistant_id: historian
    task: "What was the last commit in {{{{repo_path}}}}?"
    next: {{state_id: end, output_key: answer}}
"""


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=Dana", "-c", "user.email=dana@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "notes.md").write_text("notes\n")
    subprocess.run([*git, "add", "notes.md"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "Add the release notes"], check=True)
    return repo


def test_the_assistant_gets_its_own_server_started_with_arguments_from_the_store(
    runner: Runner, repository: Path
) -> None:
    runner.provider.enqueue_tool_call("repo__git_log", {"repo_path": str(repository), "max_count": 1})
    runner.provider.enqueue_reply("The last commit adds the release notes.")
    run = runner.run(HISTORIAN, {"repo_path": str(repository)}, decide=lambda _: ApprovalDecision.ALLOW_ONCE)
    assert run.status == "finished", run.error
    assert run.store["answer"] == "The last commit adds the release notes."
    first, second = runner.provider.requests
    offered = [t.name for t in first.tools]
    assert "repo__git_log" in offered and "workspace__read_file" not in offered  # not in its tools:
    assert any("Add the release notes" in m.content for m in second.messages)  # the real server answered
    [asked] = runner.asked
    assert (asked.server, asked.tool) == ("repo", "git_log") and asked.origin.endswith("historian")
    assert step(run, "history").request_context is not None


def test_a_store_value_that_would_become_an_option_is_refused_before_anything_starts(runner: Runner) -> None:
    run = runner.run(HISTORIAN, {"repo_path": "--help"})
    assert run.status == "failed"
    assert "is refused: it would become the option '--help'" in run.error
    assert runner.provider.requests == []


def test_check_finds_undefined_server_arguments_and_servers_with_nothing_to_run(tmp_path: Path) -> None:
    text = HISTORIAN.replace('{{repo_path}}"]', '{{repo}}"]').replace(f"command: {sys.executable}", "")
    text = text.replace("config:\n          \n", "config:\n")
    problems: list[Problem] = []
    workflow = parse_workflow(tmp_path / "flow.yaml", text, problems)
    assert workflow is not None, problems
    found = [p.message for p in check_workflow(workflow, agent_servers={"git": "stdio"})]
    assert any("MCP server 'repo' arguments: 'repo' is undefined" in m for m in found), found
    assert any("the MCP server 'repo' gives no command" in m for m in found), found
    # Naming one of the agent's own stdio servers is enough: its command is used.
    assert not [
        m
        for m in check_workflow(workflow, agent_servers={"repo": "stdio"})
        if "gives no command" in m.message
    ]
