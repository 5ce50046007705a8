"""Issue #17 row 17: `agent check` names every unset env:// and ${VAR} in agent.yaml, and where."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.cli.main import main

AGENT = """\
name: Checked
providers:
  openai:
    apiKey: env://CD_CHECK_OPENAI
mcpServers:
  github:
    command: npx
    args: [-y, server-github, --token, env://CD_CHECK_ARG]
    env:
      GITHUB_TOKEN: env://CD_CHECK_GITHUB
      PORT: ${CD_CHECK_PORT:-8080}
      FOLDER: ${workspaceFolder}
      KEY: ${input:key}
  remote:
    type: streamable-http
    url: https://x.example.com/mcp?team=${env:CD_CHECK_TEAM}
    headers:
      Authorization: Bearer ${CD_CHECK_HEADER}
      X-Set: env://CD_CHECK_SET
"""


def test_check_warns_about_every_unset_variable_with_where_it_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("CD_CHECK_OPENAI", "CD_CHECK_ARG", "CD_CHECK_GITHUB", "CD_CHECK_TEAM", "CD_CHECK_HEADER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CD_CHECK_SET", "set")
    (tmp_path / "agent.yaml").write_text(AGENT, encoding="utf-8")
    agent = load_agent(tmp_path)
    warned = [problem.message for problem in agent.problems]
    expected = {
        "CD_CHECK_OPENAI": "providers.openai.apiKey",
        "CD_CHECK_ARG": "mcpServers.github.args[4]",
        "CD_CHECK_GITHUB": "mcpServers.github.env.GITHUB_TOKEN",
        "CD_CHECK_TEAM": "mcpServers.remote.url",
        "CD_CHECK_HEADER": "mcpServers.remote.headers.Authorization",
    }
    for variable, where in expected.items():
        assert any(variable in message and message.startswith(where) for message in warned), variable
    assert len(warned) == len(expected)  # defaults, workspaceFolder, input: and set ones are fine

    assert main(["agent", "check", str(tmp_path)]) == 0  # warnings, not errors
    output = capsys.readouterr().out
    assert "CD_CHECK_GITHUB" in output and "mcpServers.github.env.GITHUB_TOKEN" in output
