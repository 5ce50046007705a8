"""``contextdesk agent show`` with server status, and ``contextdesk mcp call|ping``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agent_core.cli.main import main
from tests.support.mcp_servers import DEMO_SERVER
from tests.support.server_trust import trust_servers


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    root.mkdir()
    (root / "agent.yaml").write_text(
        "name: Tools\n"
        "mcpServers:\n"
        f"  demo:\n    command: {json.dumps(sys.executable)}\n    args: [{json.dumps(str(DEMO_SERVER))}]\n"
        "    tools:\n      echo: {include: agent, permissionRequired: false}\n"
        "  broken:\n    command: no-such-server-binary\n"
    )
    return trust_servers(root)


def test_show_starts_the_servers_and_lists_status_and_tools(
    agent_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "agent", "show", str(agent_dir))
    assert code == 0
    assert "ready (demo 1.2.3)" in out
    assert any(line.split()[:4] == ["echo", "agent", "allow", "Repeat"] for line in out.splitlines())
    assert "failed: MCP server 'broken': `no-such-server-binary` was not found" in out

    code, out, _ = run(capsys, "agent", "show", str(agent_dir), "--json")
    servers = {s["name"]: s for s in json.loads(out)["mcpServers"]}
    assert servers["demo"]["status"]["state"] == "ready"
    echo = next(t for t in servers["demo"]["availableTools"] if t["name"] == "echo")
    assert (echo["include"], echo["permission"]) == ("agent", "allow") and len(echo["fingerprint"]) == 64
    assert servers["broken"]["status"]["state"] == "failed"

    code, out, _ = run(capsys, "agent", "show", str(agent_dir), "--no-start", "--json")
    assert "status" not in json.loads(out)["mcpServers"][0]


def test_mcp_call_prints_the_result_and_fails_on_tool_errors(
    agent_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "mcp", "call", str(agent_dir), "demo", "add", "--args", '{"a": 1, "b": 2}')[:2] == (
        0,
        "3\n",
    )
    code, _, err = run(capsys, "mcp", "call", str(agent_dir), "demo", "fail", "--args", '{"message": "nope"}')
    assert code == 1 and "nope" in err
    code, _, err = run(capsys, "mcp", "call", str(agent_dir), "demo", "add", "--args", "{a}")
    assert code == 1 and "--args is not valid JSON" in err
    code, _, err = run(capsys, "mcp", "call", str(agent_dir), "nope", "add")
    assert code == 1 and "no MCP server named 'nope' (servers: demo, broken)" in err


def test_mcp_ping_reports_each_server(agent_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "mcp", "ping", str(agent_dir))
    assert code == 1
    assert "demo: ready (demo 1.2.3)" in out and "ping" in out
    assert "broken: failed" in out
    assert run(capsys, "mcp", "ping", str(agent_dir), "demo")[0] == 0


def test_resources_and_prompts_are_listed(agent_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "mcp", "resources", str(agent_dir), "demo")
    assert code == 0 and "demo  demo://greeting  greeting  A greeting" in out
    code, out, _ = run(capsys, "mcp", "prompts", str(agent_dir), "demo")
    assert code == 0 and "demo  review code=... language?=...  Ask for a review of some code." in out


def test_interactive_chat_attaches_a_resource_and_sends_a_prompt(agent_dir: Path, tmp_path: Path) -> None:
    import subprocess

    script = tmp_path / "script.json"
    script.write_text(json.dumps({"steps": [{"reply": "I see the greeting."}, {"reply": "Looks fine."}]}))
    config = (
        (agent_dir / "agent.yaml")
        .read_text()
        .replace(
            "name: Tools\n",
            f"name: Tools\nchat: {{model: 'scripted:x'}}\nproviders:\n  scripted:\n    options: {{script: {json.dumps(str(script))}}}\n",
        )
    )
    (agent_dir / "agent.yaml").write_text(config)
    command = Path(sys.executable).with_name("contextdesk")
    result = subprocess.run(
        [str(command), "chat", "--agent", str(agent_dir)],
        input="/attach demo demo://greeting\nwhat does it say?\n/context\n/prompt demo review code=x=1\ny\n/exit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Attached demo://greeting" in out
    assert "I see the greeting." in out
    assert "demo://greeting [Manual]" in out  # the attached resource is in the reply's context
    assert "--- prompt review ---" in out and "x=1" in out
    assert "Looks fine." in out


@pytest.fixture
def everything_agent(tmp_path: Path, node_modules: Path) -> Path:
    from tests.support.mcp_servers import npm_server

    server = npm_server(node_modules, "server-everything", "stdio")
    root = tmp_path / "everything-agent"
    root.mkdir()
    (root / "agent.yaml").write_text(
        "name: Everything\nmcpServers:\n"
        f"  everything:\n    command: {json.dumps(server.command)}\n    args: {json.dumps(server.args)}\n"
    )
    return trust_servers(root)


def test_mcp_call_prints_structured_content_as_pretty_json(
    everything_agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys,
        "mcp",
        "call",
        str(everything_agent),
        "everything",
        "get-structured-content",
        "--args",
        '{"location": "Chicago"}',
    )
    assert code == 0
    pretty = out.split("Structured content:\n", 1)[1]
    assert json.loads(pretty)["conditions"] and '\n  "temperature": ' in pretty


def test_mcp_call_saves_images_to_files_it_names_and_never_overwrites(
    everything_agent: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "media"
    folder.mkdir()
    (folder / "get-tiny-image-1.png").write_bytes(b"mine")
    args = ("mcp", "call", str(everything_agent), "everything", "get-tiny-image", "--save-dir", str(folder))
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert f"[image: PNG 20x20, 3.9 KB] saved to {folder / 'get-tiny-image-2.png'}" in out
    assert (folder / "get-tiny-image-1.png").read_bytes() == b"mine"
    assert (folder / "get-tiny-image-2.png").read_bytes().startswith(b"\x89PNG")
    code, out, _ = run(capsys, *args, "--json")
    assert json.loads(out)["savedFiles"] == [str(folder / "get-tiny-image-3.png")]


def test_agent_show_prints_each_tools_hints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.support.mcp_servers import RICH_SERVER

    root = tmp_path / "rich-agent"
    root.mkdir()
    (root / "agent.yaml").write_text(
        "name: Rich\nmcpServers:\n"
        f"  rich:\n    command: {json.dumps(sys.executable)}\n    args: [{json.dumps(str(RICH_SERVER))}]\n"
        "    toolDefaults: {permissionRequired: false}\n"
    )
    trust_servers(root)
    code, out, _ = run(capsys, "agent", "show", str(root))
    assert code == 0
    delete = next(line for line in out.splitlines() if line.split()[:1] == ["delete_note"])
    assert delete.split()[1:3] == ["always", "ask"] and delete.endswith("[destructive]")
    code, out, _ = run(capsys, "agent", "show", str(root), "--json")
    tools = {t["name"]: t for t in json.loads(out)["mcpServers"][0]["availableTools"]}
    assert tools["read_note"]["hints"] == ["read-only"] and tools["write_note"]["hints"] == []
