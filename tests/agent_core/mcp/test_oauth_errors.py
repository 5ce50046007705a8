"""An OAuth sign-in that fails says what went wrong and how to fix it: no library traceback, no HTML.

Real HTTP: tests/support/oauth_failures.py serves a sign-in that fails in one chosen way, and
ContextDesk's own client (McpManager, and `contextdesk mcp login` in a child process) meets it.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from agent_core.agent.schema import StreamableHttpServerConfig
from agent_core.mcp import McpManager, ServerState
from agent_core.mcp.oauth import SignInRequest
from agent_core.mcp.oauth_errors import server_reason
from tests.support.oauth_failures import FailingOAuthServer, Failure
from tests.support.paths import REPO_ROOT
from tests.support.server_trust import trust_servers

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("memory_keyring")]


class Browser:
    """The user, who signs in at once: follows the sign-in URL to the loopback listener."""

    def __init__(self) -> None:
        self.sign_ins = 0

    async def __call__(self, request: SignInRequest) -> bool:
        self.sign_ins += 1
        async with httpx2.AsyncClient(follow_redirects=True, timeout=10) as browser:
            await browser.get(request.url)
        return True


async def failed_reason(failure: Failure, caplog: pytest.LogCaptureFixture) -> tuple[str, Browser]:
    """Start a server whose sign-in fails as ``failure`` says; its status reason (it must have failed)."""
    browser = Browser()
    with FailingOAuthServer(failure) as server, caplog.at_level(logging.WARNING):
        config = StreamableHttpServerConfig(type="streamable-http", url=server.url, oauth=True)
        async with McpManager({"remote": config}, sign_in=browser) as manager:
            status = manager.status("remote")
    assert status.state is ServerState.FAILED
    assert status.reason is not None
    # Nothing of the server's page, and no "failed unexpectedly" (a ContextDesk bug) in the logs.
    assert "<" not in status.reason and "Traceback" not in caplog.text
    assert "failed unexpectedly" not in caplog.text and "OAuth flow error" not in caplog.text
    assert "Fix: " in status.reason and len(status.reason) < 600
    return status.reason, browser


async def test_a_server_without_dynamic_registration_says_to_set_a_client_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    reason, browser = await failed_reason("no-registration", caplog)
    assert "does not allow dynamic client registration (HTTP 404: 404 Not Found)" in reason
    assert "Fix: set a pre-registered client id for it (agent.yaml `oauth.clientId`" in reason
    assert "`contextdesk mcp set-secret AGENT_DIR remote client-secret`" in reason
    assert "`oauth.clientMetadataUrl`" in reason
    assert browser.sign_ins == 0  # nothing to sign in with


async def test_a_refused_registration_gives_the_servers_oauth_error(caplog: pytest.LogCaptureFixture) -> None:
    reason, _ = await failed_reason("registration-refused", caplog)
    assert "refused to register ContextDesk as a client" in reason
    assert "(HTTP 400: invalid_client_metadata: redirect_uri is not allowed)" in reason


async def test_a_refused_token_says_to_sign_in_again(caplog: pytest.LogCaptureFixture) -> None:
    reason, browser = await failed_reason("token-refused", caplog)
    assert "refused to issue a token (HTTP 400: invalid_grant: The authorization code has expired)" in reason
    assert "Fix: sign in again (`contextdesk mcp login AGENT_DIR remote`" in reason
    assert browser.sign_ins == 1


async def test_unreadable_sign_in_metadata_names_the_status(caplog: pytest.LogCaptureFixture) -> None:
    reason, _ = await failed_reason("metadata-error", caplog)
    assert "its sign-in information (OAuth metadata) could not be read (HTTP 500)" in reason


async def test_an_unreachable_authorization_server_is_named_not_the_mcp_server(
    caplog: pytest.LogCaptureFixture,
) -> None:
    reason, _ = await failed_reason("authorization-server-down", caplog)
    assert "cannot reach http://127.0.0.1:" in reason and "names as where to sign in" in reason


async def test_a_refused_scope_step_up_names_the_scope(caplog: pytest.LogCaptureFixture) -> None:
    reason, browser = await failed_reason("scope-refused", caplog)
    assert "refused the connection: it needs the permission (OAuth scope) 'admin'" in reason
    assert "HTTP 403 insufficient_scope" in reason and "Server returned an error response" not in reason
    assert browser.sign_ins == 2  # the sign-in, then the step-up for 'admin': both refused


def test_the_cli_prints_the_fix_and_no_traceback(tmp_path: Path) -> None:
    with FailingOAuthServer("no-registration") as server:
        agent = tmp_path / "agent"
        agent.mkdir()
        (agent / "agent.yaml").write_text(
            f"name: OAuth\nmcpServers:\n  remote:\n    type: streamable-http\n    url: {server.url}\n"
            "    oauth: true\n"
        )
        trust_servers(agent)
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "agent_core.cli.main",
                "mcp",
                "login",
                str(agent),
                "remote",
                "--no-browser",
            ],
            stdin=subprocess.DEVNULL,  # nothing to answer: the sign-in fails before any question
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHON_KEYRING_BACKEND": "tests.support.memory_keyring.MemoryKeyring"},
            cwd=REPO_ROOT,
        )
    assert done.returncode == 1
    assert done.stderr.startswith("contextdesk: MCP server 'remote': its authorization server does not allow")
    assert "Traceback" not in done.stderr and "<!DOCTYPE" not in done.stderr
    assert "--verbose" not in done.stderr and len(done.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (
            '{"error": "invalid_client", "error_description": "Unknown client"}',
            "invalid_client: Unknown client",
        ),
        ("<html><head><title>403 &amp; Forbidden</title></head><body>x</body></html>", "403 & Forbidden"),
        ("<html><body><h1>Bad <b>Gateway</b></h1></body></html>", "Bad Gateway"),
        ("plain words\nover two lines", "plain words over two lines"),
        ("", "no reason given"),
        ("x" * 50_000, "x" * 199 + "…"),
    ],
)
def test_the_servers_reason_is_its_few_words_bounded(body: str, reason: str) -> None:
    assert server_reason(body) == reason
