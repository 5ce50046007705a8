"""The hostile MCP test server (tests/fixtures/mcp/hostile_server.py, a real stdio process) and an
agent folder naming such servers, trusted as the user would: what the fault tests share."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agent_core.agent.schema import StdioServerConfig
from tests.support.paths import FIXTURES
from tests.support.server_trust import trust_servers

__all__ = ["HOSTILE", "WAIT", "agent_with", "hostile"]

HOSTILE = FIXTURES / "mcp" / "hostile_server.py"
WAIT = 60.0  # seconds any one wait on a process or a pipe may take before the test fails


def hostile(*args: str, **settings: object) -> StdioServerConfig:
    """The hostile server run as ``hostile_server.py ARGS``, with ``settings`` of its config."""
    return StdioServerConfig(command=sys.executable, args=[str(HOSTILE), *args], **settings)  # type: ignore[arg-type]


def agent_with(tmp_path: Path, servers: dict[str, StdioServerConfig], extra: str = "") -> Path:
    """An agent folder in ``tmp_path/agent`` naming ``servers`` (their tools run without asking),
    with ``extra`` agent.yaml lines, its servers trusted once as the user would."""
    root = tmp_path / "agent"
    root.mkdir(exist_ok=True)
    lines = ["name: Faults", "mcpServers:"]
    for name, config in servers.items():
        lines += [
            f"  {name}:",
            f"    command: {json.dumps(config.command)}",
            f"    args: {json.dumps(config.args)}",
        ]
        lines += ["    toolDefaults: {permissionRequired: false}"]
    (root / "agent.yaml").write_text("\n".join(lines) + "\n" + extra)
    return trust_servers(root)
