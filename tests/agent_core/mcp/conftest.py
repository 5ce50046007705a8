"""Fixtures for the MCP tests: the demo server over HTTP, the npm servers (helpers: tests/support/mcp_servers.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.mcp_servers import (
    DEMO_SERVER,
    free_port,
    require_node_modules,
    start_http_server,
    stop_process,
)


@pytest.fixture
def demo_http_url() -> Iterator[str]:
    """The demo server over streamable HTTP on 127.0.0.1."""
    port = free_port()
    process = start_http_server(
        [sys.executable, str(DEMO_SERVER), "--transport", "streamable-http", "--port", str(port)], port
    )
    yield f"http://127.0.0.1:{port}/mcp"
    stop_process(process)


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """tests/node_modules with the npm servers, installed with `npm ci` when missing."""
    return require_node_modules()
