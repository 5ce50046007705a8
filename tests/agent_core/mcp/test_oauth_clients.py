"""Who ContextDesk is to an authorization server: a pre-registered client (its secret in the keyring), a
client ID metadata document, or a dynamic registration; against the SDK's own authorization server
(tests/support/oauth_server.py)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from pydantic import AnyUrl, ValidationError

from agent_core.agent.loader import load_agent
from agent_core.agent.schema import OAuthConfig, StreamableHttpServerConfig
from agent_core.cli.main import main as cli
from agent_core.mcp import McpManager, ServerState
from agent_core.mcp.oauth import KEYRING_SERVICE
from agent_core.mcp.oauth_loopback import callback_port
from agent_core.mcp.oauth_storage import KeyringTokenStorage
from tests.support.memory_keyring import MemoryKeyring
from tests.support.oauth_server import BrowserStandIn, OAuthMcpServer
from tests.support.server_trust import trust_servers

pytestmark = pytest.mark.anyio

CLIENT_ID = "contextdesk-desktop"
CLIENT_SECRET = "pre-registered-secret-value"  # a test value
DOCUMENT_URL = "https://contextdesk.example/oauth/client.json"


def registered_client(port: int, secret: str | None) -> object:
    from mcp.shared.auth import OAuthClientInformationFull

    return OAuthClientInformationFull(
        client_id=CLIENT_ID,
        client_secret=secret,
        redirect_uris=[AnyUrl(f"http://127.0.0.1:{port}/callback")],
        grant_types=["authorization_code", "refresh_token"],
        token_endpoint_auth_method="client_secret_basic" if secret else "none",
        scope="mcp",
    )


def write_agent(root: Path, url: str, oauth_block: str) -> Path:
    root.mkdir()
    (root / "agent.yaml").write_text(
        f"name: OAuth\nmcpServers:\n  remote:\n    type: streamable-http\n    url: {url}\n    oauth:\n{oauth_block}"
    )
    return trust_servers(root)


async def test_a_pre_registered_client_signs_in_without_registering_its_secret_only_in_the_keyring(
    memory_keyring: MemoryKeyring, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    port = callback_port(None, None)
    with OAuthMcpServer(registration=False) as server:
        server.provider.clients[CLIENT_ID] = registered_client(port, CLIENT_SECRET)  # type: ignore[assignment]
        root = write_agent(
            tmp_path / "agent", server.url, f"      clientId: {CLIENT_ID}\n      redirectPort: {port}\n"
        )
        secret_file = tmp_path / "secret.txt"
        secret_file.write_text(CLIENT_SECRET + "\n")
        assert (
            cli(["mcp", "set-secret", str(root), "remote", "client-secret", "--from-file", str(secret_file)])
            == 0
        )
        secret_file.unlink()
        browser = BrowserStandIn()
        agent = load_agent(root)
        async with McpManager(agent.config.mcp_servers, sign_in=browser) as manager:
            status = manager.status("remote")
            assert status.state is ServerState.READY, status.reason
            assert (await manager.call_tool("remote", "whoami", {})).text == "signed in"
        # Signed in as the pre-registered client: no registration, the secret checked by the server.
        assert list(server.provider.clients) == [CLIENT_ID] and server.provider.code_grants == 1
        assert f"client_id={CLIENT_ID}" in browser.requests[0].url
    assert memory_keyring.entries[(KEYRING_SERVICE, f"client-secret:{server.url}")] == CLIENT_SECRET
    for path in root.rglob("*"):
        assert not path.is_file() or CLIENT_SECRET.encode() not in path.read_bytes(), path
    assert CLIENT_SECRET not in caplog.text + "\n".join(str(record.args) for record in caplog.records)


async def test_a_pre_registered_client_without_its_secret_says_how_to_store_it(
    memory_keyring: MemoryKeyring,
) -> None:
    with OAuthMcpServer(registration=False) as server:
        settings = OAuthConfig(client_id=CLIENT_ID, client_auth="client_secret_basic")
        config = StreamableHttpServerConfig(type="streamable-http", url=server.url, oauth=settings)
        browser = BrowserStandIn()
        async with McpManager({"remote": config}, sign_in=browser) as manager:
            status = manager.status("remote")
    assert status.state is ServerState.FAILED
    assert status.reason is not None and "no client secret is stored" in status.reason
    assert "contextdesk mcp set-secret AGENT_DIR remote client-secret" in status.reason
    assert browser.requests == []


async def test_a_public_pre_registered_client_needs_no_secret(memory_keyring: MemoryKeyring) -> None:
    port = callback_port(None, None)
    with OAuthMcpServer(registration=False) as server:
        server.provider.clients[CLIENT_ID] = registered_client(port, None)  # type: ignore[assignment]
        settings = OAuthConfig(client_id=CLIENT_ID, redirect_port=port)
        config = StreamableHttpServerConfig(type="streamable-http", url=server.url, oauth=settings)
        async with McpManager({"remote": config}, sign_in=BrowserStandIn()) as manager:
            assert manager.status("remote").state is ServerState.READY, manager.status("remote").reason
        assert list(server.provider.clients) == [CLIENT_ID]


async def test_a_client_metadata_url_is_the_client_id_where_the_server_supports_documents(
    memory_keyring: MemoryKeyring,
) -> None:
    from mcp.shared.auth import OAuthClientInformationFull

    port = callback_port(None, None)
    with OAuthMcpServer(registration=True, metadata_documents=True) as server:
        server.provider.metadata_documents[DOCUMENT_URL] = OAuthClientInformationFull(
            client_id=DOCUMENT_URL,
            redirect_uris=[AnyUrl(f"http://127.0.0.1:{port}/callback")],
            token_endpoint_auth_method="none",
            scope="mcp",
        )
        settings = OAuthConfig(client_metadata_url=DOCUMENT_URL, redirect_port=port)
        config = StreamableHttpServerConfig(type="streamable-http", url=server.url, oauth=settings)
        browser = BrowserStandIn()
        async with McpManager({"remote": config}, sign_in=browser) as manager:
            assert manager.status("remote").state is ServerState.READY, manager.status("remote").reason
        assert server.provider.clients == {} and server.provider.document_clients_used >= 1
        assert "client_id=https%3A%2F%2Fcontextdesk.example%2Foauth%2Fclient.json" in browser.requests[0].url


async def test_a_client_metadata_url_falls_back_to_registration_where_documents_are_not_supported(
    memory_keyring: MemoryKeyring,
) -> None:
    with OAuthMcpServer(registration=True, metadata_documents=False) as server:
        settings = OAuthConfig(client_metadata_url=DOCUMENT_URL)
        config = StreamableHttpServerConfig(type="streamable-http", url=server.url, oauth=settings)
        async with McpManager({"remote": config}, sign_in=BrowserStandIn()) as manager:
            assert manager.status("remote").state is ServerState.READY, manager.status("remote").reason
        assert len(server.provider.clients) == 1 and server.provider.document_clients_used == 0


def test_a_secret_written_in_agent_yaml_is_refused_without_repeating_it() -> None:
    with pytest.raises(ValidationError) as caught:
        OAuthConfig.model_validate({"clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET})
    problem = caught.value.errors(include_url=False)[0]["msg"]
    assert "never kept in agent.yaml" in problem and "set-secret AGENT_DIR SERVER client-secret" in problem
    assert CLIENT_SECRET not in problem


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        ({"clientMetadataUrl": "http://example.com/client.json"}, "must be an https:// URL"),
        ({"clientMetadataUrl": "https://example.com/"}, "must name a document"),
        ({"clientId": "a", "clientMetadataUrl": DOCUMENT_URL}, "not both"),
        ({"grant": "client-credentials"}, "needs clientId"),
        ({"grant": "cross-app-access", "clientId": "a"}, "needs idpTokenEndpoint and idpClientId"),
        ({"clientId": "a", "clientAuth": "private_key_jwt"}, "client-credentials only"),
    ],
)
def test_oauth_settings_that_cannot_work_are_refused_with_the_reason(
    block: dict[str, str], problem: str
) -> None:
    with pytest.raises(ValidationError, match=problem):
        OAuthConfig.model_validate(block)


def test_clearing_a_secret_forgets_it(memory_keyring: MemoryKeyring, tmp_path: Path) -> None:
    root = write_agent(tmp_path / "agent", "https://mcp.example.com/mcp", "      clientId: c\n")
    KeyringTokenStorage("remote", "https://mcp.example.com/mcp").set_secret("client-secret", "x")
    assert cli(["mcp", "set-secret", str(root), "remote", "client-secret", "--clear"]) == 0
    assert memory_keyring.entries == {}


def test_an_agent_file_with_a_secret_in_its_oauth_block_says_one_thing_and_not_the_value(
    tmp_path: Path,
) -> None:
    root = tmp_path / "agent"
    root.mkdir()
    (root / "agent.yaml").write_text(
        "name: OAuth\nmcpServers:\n  remote:\n    type: streamable-http\n    url: https://mcp.example.com/mcp\n"
        f"    oauth: {{clientId: {CLIENT_ID}, clientSecret: {CLIENT_SECRET}}}\n"
    )
    agent = load_agent(root)
    [problem] = agent.problems
    assert "oauth.clientSecret is a secret, never kept in agent.yaml" in problem.message
    assert CLIENT_SECRET not in problem.message + problem.fix
    assert "remote" not in agent.config.mcp_servers
