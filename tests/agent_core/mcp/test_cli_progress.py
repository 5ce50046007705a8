"""``contextdesk mcp call`` reports a tool's progress on stderr, a few lines a second at most."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agent_core.cli.main import main
from tests.support.mcp_servers import NOTIFYING_SERVER
from tests.support.paths import REPO_ROOT
from tests.support.server_trust import trust_servers


@pytest.fixture
def agent_dir(tmp_path: Path, node_modules: Path) -> Path:
    everything = node_modules / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    root = tmp_path / "agent"
    root.mkdir()
    (root / "agent.yaml").write_text(
        "name: Tools\n"
        "mcpServers:\n"
        f"  everything:\n    command: node\n    args: [{json.dumps(str(everything))}, stdio]\n"
        f"  n:\n    command: {json.dumps(sys.executable)}\n    args: [{json.dumps(str(NOTIFYING_SERVER))}]\n"
    )
    return trust_servers(root)


def test_mcp_call_prints_every_step_of_a_long_running_operation(
    agent_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = '{"duration": 1, "steps": 5}'
    code = main(
        ["mcp", "call", str(agent_dir), "everything", "trigger-long-running-operation", "--args", arguments]
    )
    out, err = capsys.readouterr()
    assert code == 0 and "completed" in out
    lines = [
        line for line in err.splitlines() if line.startswith("[everything.trigger-long-running-operation:")
    ]
    assert lines[0] == "[everything.trigger-long-running-operation: 1/5 · 20%]"
    assert lines[-1] == "[everything.trigger-long-running-operation: 5/5 · 100%]"
    assert len(lines) == 5


def test_a_flood_of_progress_prints_a_few_lines_and_the_last(
    agent_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["mcp", "call", str(agent_dir), "n", "flood_progress", "--args", '{"count": 10000}'])
    out, err = capsys.readouterr()
    assert code == 0 and "sent 10000 progress reports" in out
    lines = [line for line in err.splitlines() if line.startswith("[n.flood_progress:")]
    assert 1 <= len(lines) < 100
    assert lines[-1] == "[n.flood_progress: 10000/10000 · 100% step 10000]"


def test_contextdesk_chat_prints_the_progress_of_a_tool_call(agent_dir: Path, tmp_path: Path) -> None:
    import subprocess

    script = tmp_path / "script.json"
    call = {
        "name": "everything__trigger-long-running-operation",
        "arguments": {"duration": 1, "steps": 2},
        "id": "c1",
    }
    script.write_text(json.dumps({"steps": [{"tool_calls": [call]}, {"reply": "It ran."}]}))
    config = (agent_dir / "agent.yaml").read_text(encoding="utf-8")
    config = config.replace(
        "name: Tools\n",
        "name: Tools\nchat: {model: 'scripted:x', toolPermission: allow}\n"
        f"providers:\n  scripted:\n    options: {{script: {json.dumps(str(script))}}}\n",
    )
    (agent_dir / "agent.yaml").write_text(config, encoding="utf-8")
    result = subprocess.run(  # this checkout's code, whichever one the installed script runs
        [sys.executable, "-m", "agent_core.cli.main", "chat", "--agent", str(agent_dir)],
        cwd=REPO_ROOT,
        input="run the long operation\n/exit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "[progress: 1/2 · 50%]" in result.stderr and "[progress: 2/2 · 100%]" in result.stderr
    assert "It ran." in result.stdout


def test_mcp_call_prints_the_status_of_a_task_and_its_result(
    agent_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "mcp",
            "call",
            str(agent_dir),
            "everything",
            "simulate-research-query",
            "--args",
            '{"topic": "moss"}',
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0 and "# Research Report: moss" in out
    lines = [line for line in err.splitlines() if line.startswith("[everything.simulate-research-query:")]
    assert lines[0] == "[everything.simulate-research-query: task working · Gathering sources...]"
    assert lines[-1].startswith("[everything.simulate-research-query: task completed")
