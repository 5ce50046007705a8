"""`contextdesk mcp call` answers a server's elicitation at the terminal; `--yes` declines it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.mcp_servers import npm_server
from tests.support.server_trust import trust_servers


@pytest.fixture
def everything_agent(tmp_path: Path, node_modules: Path) -> Path:
    root = tmp_path / "agent"
    root.mkdir()
    server = npm_server(node_modules, "server-everything", "stdio")
    workspace = tmp_path / "work"
    workspace.mkdir()
    (root / "agent.yaml").write_text(
        "name: Everything\nmcpServers:\n"
        f"  everything:\n    command: {json.dumps(server.command)}\n    args: {json.dumps(server.args)}\n"
        f"  workspace:\n    type: internal\n    tool: workspace\n    options: {{root: {json.dumps(str(workspace))}}}\n"
    )
    return trust_servers(root)


def call(agent: Path, tool: str, *extra: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    # `-m` from the repository root: this checkout's code, whichever one the console script points at.
    return subprocess.run(
        [sys.executable, "-m", "agent_core.cli.main", "mcp", "call", str(agent), "everything", tool, *extra],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[3],
    )


def test_the_form_is_asked_field_by_field_and_the_answers_reach_the_server(everything_agent: Path) -> None:
    # name, check, firstLine, email, homepage, birthdate, integer, number, five choices; then send.
    answers = ["Grace Hopper", "y", "", "not-an-email", "grace@example.com", "", "", "500", "7", ""]
    answers += ["", "", "2", "", "", "s"]
    result = call(everything_agent, "trigger-elicitation-request", stdin="\n".join(answers) + "\n")
    assert result.returncode == 0, result.stderr
    assert "MCP server 'everything' asks: Please provide inputs" in result.stderr
    assert "String (required): Your full, legal name" in result.stderr
    assert "an email address" in result.stderr  # the wrong one was asked again
    assert "at most 100" in result.stderr  # 500 is out of the integer's range
    assert "2. Green Lantern" in result.stderr
    assert "- Name: Grace Hopper" in result.stdout
    assert "- Email: grace@example.com" in result.stdout
    assert "- Favorite Integer: 7" in result.stdout
    assert '"titledSingleSelectEnum": "hero-2"' in result.stdout


def test_yes_declines_the_form_and_says_so(everything_agent: Path) -> None:
    result = call(everything_agent, "trigger-elicitation-request", "--yes")
    assert result.returncode == 0, result.stderr
    assert "declined: --yes never answers for you" in result.stderr
    assert "User declined to provide the requested information" in result.stdout


def test_declining_at_the_terminal_and_running_out_of_input(everything_agent: Path) -> None:
    declined = call(everything_agent, "trigger-elicitation-request", stdin="Ada\n" + "\n" * 12 + "d\n")
    assert "User declined" in declined.stdout
    ended = call(everything_agent, "trigger-elicitation-request", stdin="Ada\n")
    assert "User cancelled" in ended.stdout


def test_a_link_is_shown_and_declining_opens_nothing(everything_agent: Path) -> None:
    arguments = json.dumps({"url": "https://example.com/pay", "message": "Confirm the payment"})
    result = call(everything_agent, "trigger-url-elicitation", "--args", arguments, stdin="d\n")
    assert "Confirm the payment" in result.stderr and "open: https://example.com/pay" in result.stderr
    assert "declined to open the URL" in result.stdout


def test_get_roots_list_returns_the_agent_workspace_folder(everything_agent: Path) -> None:
    result = call(everything_agent, "get-roots-list")
    work = (everything_agent.parent / "work").resolve()
    assert result.returncode == 0, result.stderr
    assert "(1 total)" in result.stdout and work.as_uri() in result.stdout


def test_chat_with_yes_approves_the_tool_call_but_declines_the_form_it_brings(
    everything_agent: Path, tmp_path: Path
) -> None:
    script = tmp_path / "script.json"
    steps = [{"tool_calls": [{"name": "everything__trigger-elicitation-request", "arguments": {}}]}]
    script.write_text(json.dumps({"steps": [*steps, {"reply": "Done."}]}))
    config = (everything_agent / "agent.yaml").read_text()
    scripted = f"chat: {{model: 'scripted:x'}}\nproviders:\n  scripted:\n    options: {{script: {json.dumps(str(script))}}}\n"
    (everything_agent / "agent.yaml").write_text(config.replace("mcpServers:\n", scripted + "mcpServers:\n"))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_core.cli.main",
            "chat",
            "--agent",
            str(everything_agent),
            "--yes",
            "Ask me",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[3],
    )
    assert result.returncode == 0, result.stderr
    assert "declined: --yes never answers for you" in result.stderr
    assert "Done." in result.stdout
