"""`contextdesk mcp login`: sign in to a server once, with or without a browser on this machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import httpx2

from tests.support.file_keyring import KEYRING_FILE_VARIABLE
from tests.support.oauth_server import OAuthMcpServer
from tests.support.paths import REPO_ROOT
from tests.support.server_trust import trust_servers


def contextdesk(keyring_file: Path, *arguments: str) -> subprocess.Popen[str]:
    """A `contextdesk` command whose keyring is a file shared by the commands of one test."""
    environment = {
        **os.environ,
        "PYTHON_KEYRING_BACKEND": "tests.support.file_keyring.FileKeyring",
        KEYRING_FILE_VARIABLE: str(keyring_file),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "agent_core.cli.main", *arguments],
        stdin=subprocess.DEVNULL,  # --no-browser asks nothing
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        cwd=REPO_ROOT,
    )


def agent_with(tmp_path: Path, server: str) -> Path:
    root = tmp_path / "agent"
    root.mkdir()
    (root / "agent.yaml").write_text(
        json.dumps({"name": "OAuth", "mcpServers": {"remote": json.loads(server)}})
    )
    return trust_servers(root)


def test_login_without_a_browser_prints_the_url_and_the_sign_in_lasts(tmp_path: Path) -> None:
    keyring_file = tmp_path / "keyring.json"
    with OAuthMcpServer() as server:
        agent = agent_with(
            tmp_path, json.dumps({"type": "streamable-http", "url": server.url, "oauth": True})
        )
        login = contextdesk(keyring_file, "mcp", "login", str(agent), "remote", "--no-browser")
        assert login.stderr is not None
        printed = []
        deadline = threading.Timer(120, login.kill)  # a hung sign-in ends the read below
        deadline.start()
        for line in login.stderr:  # to its end: the command's whole stderr, read as it comes
            printed.append(line)
            if line.strip().startswith(f"{server.base}/authorize?"):
                # Another browser, anywhere: the redirect reaches the CLI's loopback listener.
                page = httpx2.get(line.strip(), follow_redirects=True, timeout=10)
                assert "Signed in" in page.text
        deadline.cancel()
        assert login.wait(timeout=60) == 0, "".join(printed)
        assert login.stdout is not None
        assert "waiting for the sign-in to come back (--no-browser)" in "".join(printed)
        assert login.stdout.read().strip() == "Signed in to MCP server 'remote': it is ready, with 1 tools."
        # A later command uses the kept sign-in: no URL, no new authorization.
        call = contextdesk(keyring_file, "mcp", "call", str(agent), "remote", "whoami", "--no-browser")
        out, err = call.communicate(timeout=60)
        assert call.returncode == 0, err
        assert out.strip() == "signed in" and "sign in at" not in err
        assert server.provider.authorizations == 1


def test_login_to_a_server_without_oauth_says_there_is_nothing_to_sign_in_to(tmp_path: Path) -> None:
    agent = agent_with(tmp_path, json.dumps({"type": "streamable-http", "url": "http://127.0.0.1:9/mcp"}))
    login = contextdesk(tmp_path / "keyring.json", "mcp", "login", str(agent), "remote")
    _out, err = login.communicate(timeout=60)
    assert login.returncode == 1
    assert "does not sign in with OAuth" in err and "Fix: " in err and "`oauth: true`" in err
