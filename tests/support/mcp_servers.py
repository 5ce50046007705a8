"""Real MCP servers for the tests: our demo server, published ones, and starting and stopping them."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from agent_core.agent.schema import StdioServerConfig
from tests.support.paths import FIXTURES, REPO_ROOT

DEMO_SERVER = FIXTURES / "mcp" / "demo_server.py"
RICH_SERVER = FIXTURES / "mcp" / "rich_server.py"
NOTIFYING_SERVER = FIXTURES / "mcp" / "notifying_server.py"
APP_SERVER = FIXTURES / "mcp" / "app_server.py"
TESTS_DIR = REPO_ROOT / "tests"
NODE_MODULES = TESTS_DIR / "node_modules"


def demo(*args: str, **settings: Any) -> StdioServerConfig:
    """The demo server over stdio, run by this Python."""
    return StdioServerConfig(command=sys.executable, args=[str(DEMO_SERVER), *args], **settings)


def rich(**settings: Any) -> StdioServerConfig:
    """The rich-result server (annotated tools, a structured result that breaks its schema)."""
    return StdioServerConfig(command=sys.executable, args=[str(RICH_SERVER)], **settings)


def notifying(**settings: Any) -> StdioServerConfig:
    """The notifying server (progress and log floods, a tool added at runtime, cancellation) over stdio."""
    return StdioServerConfig(command=sys.executable, args=[str(NOTIFYING_SERVER)], **settings)


def apps(**settings: Any) -> StdioServerConfig:
    """The MCP Apps test server (tools with UIs, good and bad) over stdio."""
    return StdioServerConfig(command=sys.executable, args=[str(APP_SERVER)], **settings)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_listening(process: subprocess.Popen[bytes], port: int, timeout: float = 20.0) -> None:
    """Poll the port until it accepts connections, the process exits, or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            pass
        try:
            code = process.wait(timeout=0.05)  # waits on the process, and notices it dying
        except subprocess.TimeoutExpired:
            continue
        raise AssertionError(f"the server exited with {code} before listening on {port}")
    raise AssertionError(f"nothing listened on port {port} within {timeout} s")


def start_http_server(
    command: list[str], port: int, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        command, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_until_listening(process, port)
    except AssertionError:
        process.kill()
        process.wait()
        raise
    return process


def stop_process(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def npm_server(modules: Path, package: str, *args: str, **settings: Any) -> StdioServerConfig:
    """An npm server run with node directly (no npx: nothing is fetched at run time)."""
    entry = modules / "@modelcontextprotocol" / package / "dist" / "index.js"
    return StdioServerConfig(command=shutil.which("node") or "node", args=[str(entry), *args], **settings)


def require_node_modules() -> Path:
    """tests/node_modules with the npm servers (``npm ci`` when missing); skips without node."""
    import pytest

    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are not installed: the tests with MCP servers from npm are skipped")
    wanted = json.loads((TESTS_DIR / "package.json").read_text())["dependencies"]
    if not all((NODE_MODULES / name).is_dir() for name in wanted):
        subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--silent"], cwd=TESTS_DIR, check=True)
    return NODE_MODULES
