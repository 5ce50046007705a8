"""OAuth against a local MCP server built with the SDK's server-side auth (tests/support/oauth_server.py)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time as real_time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import keyring
import pytest
from mcp.client.auth import oauth2
from mcp.shared import auth_utils

from agent_core.agent.schema import StreamableHttpServerConfig
from agent_core.mcp import McpManager, ServerState, oauth, oauth_storage
from agent_core.mcp.oauth import KEYRING_SERVICE
from tests.support.memory_keyring import MemoryKeyring
from tests.support.oauth_server import BrowserStandIn, OAuthMcpServer
from tests.support.paths import REPO_ROOT
from tests.support.server_trust import trust_servers

pytestmark = pytest.mark.anyio


@pytest.fixture
def oauth_server() -> Iterator[OAuthMcpServer]:
    with OAuthMcpServer() as server:
        yield server


def oauth_config(url: str) -> StreamableHttpServerConfig:
    return StreamableHttpServerConfig(type="streamable-http", url=url, oauth=True)


def stored_token(backend: MemoryKeyring, url: str) -> dict[str, object]:
    record: dict[str, object] = json.loads(backend.entries[(KEYRING_SERVICE, f"tokens:{url}")])["token"]
    return record


async def test_signing_in_once_lets_the_tools_be_listed_and_called(
    oauth_server: OAuthMcpServer, memory_keyring: MemoryKeyring
) -> None:
    browser = BrowserStandIn()
    async with McpManager({"remote": oauth_config(oauth_server.url)}, sign_in=browser) as manager:
        status = manager.status("remote")
        assert status.state is ServerState.READY, status.reason
        assert [tool.name for tool in manager.tools()] == ["whoami"]
        result = await manager.call_tool("remote", "whoami", {})
        assert result.text == "signed in" and not result.is_error
    # One sign-in, shown to the user with the whole URL of the server's /authorize (PKCE, S256).
    assert len(browser.requests) == 1
    request = browser.requests[0]
    assert request.server == "remote" and request.url.startswith(f"{oauth_server.base}/authorize?")
    assert "code_challenge_method=S256" in request.url
    # Dynamic client registration happened, and a second run reuses the tokens: no new sign-in.
    assert len(oauth_server.provider.clients) == 1
    async with McpManager({"remote": oauth_config(oauth_server.url)}, sign_in=browser) as manager:
        assert manager.status("remote").state is ServerState.READY
    assert len(browser.requests) == 1 and oauth_server.provider.authorizations == 1


class ShiftedClock:
    """``time.time()`` for the OAuth client (the SDK's and ContextDesk's), moved forward on demand:
    an hour passes without the test waiting for it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.offset = 0.0
        for module in (oauth2, auth_utils, oauth_storage):
            monkeypatch.setattr(module, "time", self)

    def time(self) -> float:
        return real_time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


async def test_an_expired_token_is_refreshed_without_asking_the_user(
    oauth_server: OAuthMcpServer, memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = ShiftedClock(monkeypatch)
    oauth_server.provider.reported_lifetime = 600
    browser = BrowserStandIn()
    async with McpManager({"remote": oauth_config(oauth_server.url)}, sign_in=browser) as manager:
        assert manager.status("remote").state is ServerState.READY
        first = stored_token(memory_keyring, oauth_server.url)["access_token"]
        # An hour later the access token has expired, for the server and the client alike.
        oauth_server.provider.expire_access_tokens()
        clock.advance(3600)
        result = await manager.call_tool("remote", "whoami", {})
        assert result.text == "signed in" and not result.is_error
        assert oauth_server.provider.refresh_grants == 1
    second = stored_token(memory_keyring, oauth_server.url)["access_token"]
    assert second != first
    # Another hour, and a new run: the expiry stored in the keyring makes it refresh before sending.
    oauth_server.provider.expire_access_tokens()
    clock.advance(3600)
    async with McpManager({"remote": oauth_config(oauth_server.url)}, sign_in=browser) as manager:
        assert manager.status("remote").state is ServerState.READY, manager.status("remote").reason
    assert oauth_server.provider.refresh_grants == 2
    assert stored_token(memory_keyring, oauth_server.url)["access_token"] not in (first, second)
    assert len(browser.requests) == 1 and oauth_server.provider.authorizations == 1  # never asked again


async def test_a_revoked_sign_in_fails_with_sign_in_again_when_nobody_can_be_asked(
    oauth_server: OAuthMcpServer, memory_keyring: MemoryKeyring
) -> None:
    async with McpManager({"remote": oauth_config(oauth_server.url)}, sign_in=BrowserStandIn()) as manager:
        assert manager.status("remote").state is ServerState.READY
    oauth_server.provider.revoke_everything()
    async with McpManager({"remote": oauth_config(oauth_server.url)}) as manager:
        status = manager.status("remote")
    assert status.state is ServerState.FAILED
    assert status.reason is not None and "needs you to sign in again" in status.reason, status.reason
    assert "expired or was revoked" in status.reason


async def test_a_token_revoked_while_running_asks_again_and_cancelling_says_sign_in_again(
    oauth_server: OAuthMcpServer, memory_keyring: MemoryKeyring
) -> None:
    browser = BrowserStandIn()
    async with McpManager({"remote": oauth_config(oauth_server.url)}, sign_in=browser) as manager:
        assert manager.status("remote").state is ServerState.READY
        oauth_server.provider.revoke_everything()
        browser.signs_in = False
        result = await manager.call_tool("remote", "whoami", {})
        assert result.is_error
        assert "sign in again" in result.text and "cancelled" in result.text, result.text
        assert len(browser.requests) == 2  # the user was asked, and said no


async def test_tokens_live_only_in_the_keyring(
    oauth_server: OAuthMcpServer,
    memory_keyring: MemoryKeyring,
    isolated_user_dirs: Path,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger, the SDK's and httpx's included
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    (agent_dir / "agent.yaml").write_text(
        f"name: OAuth\nmcpServers:\n  remote:\n    type: streamable-http\n    url: {oauth_server.url}\n    oauth: true\n"
    )
    from agent_core.agent.loader import load_agent

    agent = load_agent(agent_dir)
    browser = BrowserStandIn()
    clock = ShiftedClock(monkeypatch)
    async with McpManager(agent.config.mcp_servers, sign_in=browser) as manager:
        assert manager.status("remote").state is ServerState.READY
        oauth_server.provider.expire_access_tokens()
        clock.advance(7200)  # a refresh too, so the rotated tokens pass through
        await manager.call_tool("remote", "whoami", {})
    assert oauth_server.provider.refresh_grants == 1
    secrets = [*oauth_server.provider.access_tokens, *oauth_server.provider.refresh_tokens]
    stored = stored_token(memory_keyring, oauth_server.url)
    assert stored["access_token"] in secrets and stored["refresh_token"] in secrets
    issued = [*secrets, stored["access_token"], stored["refresh_token"]]
    files = [p for root in (agent_dir, isolated_user_dirs) for p in root.rglob("*") if p.is_file()]
    for path in files:
        content = path.read_bytes()
        for token in issued:
            assert str(token).encode() not in content, f"a token is in {path}"
    logged = caplog.text + "\n".join(str(record.args) for record in caplog.records)
    assert logged  # the SDK and httpx did log, at DEBUG
    for token in issued:
        assert str(token) not in logged


def cli_call(agent: Path, *extra: str) -> subprocess.Popen[str]:
    """`contextdesk mcp call` in a child whose keyring is the in-memory one (never the real keyring)."""
    environment = {**os.environ, "PYTHON_KEYRING_BACKEND": "tests.support.memory_keyring.MemoryKeyring"}
    return subprocess.Popen(
        [sys.executable, "-m", "agent_core.cli.main", "mcp", "call", str(agent), "remote", "whoami", *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        cwd=REPO_ROOT,
    )


@pytest.fixture
def oauth_agent(tmp_path: Path, oauth_server: OAuthMcpServer) -> Path:
    root = tmp_path / "agent"
    root.mkdir()
    (root / "agent.yaml").write_text(
        f"name: OAuth\nmcpServers:\n  remote:\n    type: streamable-http\n    url: {oauth_server.url}\n    oauth: true\n"
    )
    return trust_servers(root)


def test_the_cli_prints_the_sign_in_url_and_waits_for_the_browser(
    oauth_agent: Path, oauth_server: OAuthMcpServer
) -> None:
    process = cli_call(oauth_agent)
    assert process.stdin is not None and process.stderr is not None
    process.stdin.write("w\n")  # "I will open it myself"
    process.stdin.flush()
    seen: list[str] = []
    for line in process.stderr:
        seen.append(line)
        if line.strip().startswith(f"{oauth_server.base}/authorize?"):
            # The user's browser: the sign-in page redirects to the CLI's loopback listener.
            page = httpx2.get(line.strip(), follow_redirects=True, timeout=10)
            assert "Signed in" in page.text
            break
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, "".join(seen) + err
    assert "needs you to sign in at:" in "".join(seen)
    assert "signed in" in out


def test_the_cli_with_yes_never_signs_in_for_the_user(
    oauth_agent: Path, oauth_server: OAuthMcpServer
) -> None:
    process = cli_call(oauth_agent, "--yes")
    _out, err = process.communicate(input="", timeout=60)
    assert process.returncode != 0
    assert "--yes never signs in for you" in err
    assert "sign in again" in err, err
    assert oauth_server.provider.authorizations == 0


async def test_without_a_keyring_the_server_fails_closed_and_says_why(oauth_server: OAuthMcpServer) -> None:
    from keyring.backends import fail

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    browser = BrowserStandIn()
    try:
        async with McpManager({"remote": oauth_config(oauth_server.url)}, sign_in=browser) as manager:
            status = manager.status("remote")
    finally:
        keyring.set_keyring(previous)
    assert status.state is ServerState.FAILED
    assert status.reason is not None and "system keyring, which is not available here" in status.reason
    # No sign-in whose tokens could not be kept.
    assert browser.requests == [] and oauth_server.provider.authorizations == 0


async def test_signing_out_forgets_the_tokens_and_the_next_start_asks_again(
    oauth_server: OAuthMcpServer, memory_keyring: MemoryKeyring
) -> None:
    browser = BrowserStandIn()
    async with McpManager({"remote": oauth_config(oauth_server.url)}, sign_in=browser) as manager:
        assert manager.status("remote").state is ServerState.READY
    oauth.sign_out("remote", oauth_server.url)
    assert memory_keyring.entries == {}
    async with McpManager({"remote": oauth_config(oauth_server.url)}, sign_in=browser) as manager:
        assert manager.status("remote").state is ServerState.READY
    assert len(browser.requests) == 2 and len(oauth_server.provider.clients) == 2  # registered anew
