"""The grants without a browser (client credentials, cross-app access) through the SDK's providers,
against a real local authorization server and identity provider (tests/support/oauth_grant_server.py)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from agent_core.agent.schema import OAuthConfig, StreamableHttpServerConfig
from agent_core.mcp import McpManager, ServerState
from agent_core.mcp.oauth_storage import KeyringTokenStorage, OAuthSecretKind
from tests.support.memory_keyring import MemoryKeyring
from tests.support.oauth_grant_server import CLIENT_ID, CLIENT_SECRET, ID_TOKEN, GrantServer
from tests.support.oauth_server import BrowserStandIn, OAuthMcpServer

pytestmark = pytest.mark.anyio


@pytest.fixture
def grant_server() -> Iterator[GrantServer]:
    with GrantServer() as server:
        yield server


def remote(url: str, **oauth: object) -> dict[str, StreamableHttpServerConfig]:
    return {
        "remote": StreamableHttpServerConfig(
            type="streamable-http", url=url, oauth=OAuthConfig.model_validate(oauth)
        )
    }


def store(url: str, **secrets: str) -> None:
    storage = KeyringTokenStorage("remote", url)
    for kind, value in secrets.items():
        name: OAuthSecretKind = kind.replace("_", "-")  # type: ignore[assignment]
        storage.set_secret(name, value)


async def ready_and_called(servers: dict[str, StreamableHttpServerConfig], browser: BrowserStandIn) -> None:
    async with McpManager(servers, sign_in=browser) as manager:
        status = manager.status("remote")
        assert status.state is ServerState.READY, status.reason
        assert (await manager.call_tool("remote", "whoami", {})).text == "signed in"
    assert browser.requests == []  # nobody was asked to sign in


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
async def test_client_credentials_with_a_secret_get_a_token_without_a_browser(
    grant_server: GrantServer, memory_keyring: MemoryKeyring, method: str
) -> None:
    store(grant_server.url, client_secret=CLIENT_SECRET)
    settings = {"grant": "client-credentials", "clientId": CLIENT_ID}
    if method == "client_secret_post":
        settings["clientAuth"] = method
    await ready_and_called(remote(grant_server.url, **settings), BrowserStandIn())
    [request] = [r for r in grant_server.state.requests if r.endpoint == "token"]
    assert request.form["grant_type"] == "client_credentials"
    if method == "client_secret_basic":
        assert request.basic == (CLIENT_ID, CLIENT_SECRET) and "client_secret" not in request.form
    else:
        assert request.basic is None and request.form["client_secret"] == CLIENT_SECRET


async def test_client_credentials_with_a_private_key_sign_a_jwt_and_never_log_the_key(
    grant_server: GrantServer, memory_keyring: MemoryKeyring, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    key = ec.generate_private_key(ec.SECP256R1())
    grant_server.state.public_key = key.public_key()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    store(grant_server.url, private_key=pem)
    await ready_and_called(
        remote(grant_server.url, grant="client-credentials", clientId=CLIENT_ID), BrowserStandIn()
    )
    [request] = [r for r in grant_server.state.requests if r.endpoint == "token"]
    assert request.form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    assert request.basic is None and "client_secret" not in request.form
    body = pem.splitlines()[1]
    assert body not in caplog.text + "\n".join(str(record.args) for record in caplog.records)


async def test_a_private_key_that_is_not_pem_fails_with_the_fix_and_without_the_value(
    grant_server: GrantServer, memory_keyring: MemoryKeyring
) -> None:
    store(grant_server.url, private_key="not-a-key-but-secret-text")
    async with McpManager(
        remote(grant_server.url, grant="client-credentials", clientId=CLIENT_ID)
    ) as manager:
        status = manager.status("remote")
    assert status.state is ServerState.FAILED and status.reason is not None
    assert "cannot be read" in status.reason and "set-secret AGENT_DIR remote private-key" in status.reason
    assert "not-a-key-but-secret-text" not in status.reason


async def test_client_credentials_without_a_stored_secret_say_how_to_store_it(
    grant_server: GrantServer, memory_keyring: MemoryKeyring
) -> None:
    async with McpManager(
        remote(grant_server.url, grant="client-credentials", clientId=CLIENT_ID)
    ) as manager:
        status = manager.status("remote")
    assert status.state is ServerState.FAILED and status.reason is not None
    assert "needs the client secret of 'machine-client'" in status.reason
    assert "contextdesk mcp set-secret AGENT_DIR remote client-secret" in status.reason
    assert grant_server.state.requests == []


async def test_cross_app_access_exchanges_the_id_token_then_presents_the_id_jag(
    grant_server: GrantServer, memory_keyring: MemoryKeyring
) -> None:
    store(grant_server.url, client_secret=CLIENT_SECRET, idp_id_token=ID_TOKEN)
    settings = {
        "grant": "cross-app-access",
        "clientId": CLIENT_ID,
        "idpTokenEndpoint": f"{grant_server.base}/idp/token",
        "idpClientId": "idp-client",
    }
    await ready_and_called(remote(grant_server.url, **settings), BrowserStandIn())
    idp, token = grant_server.state.requests
    # The ID-JAG is asked for this authorization server (the audience) and this MCP server.
    assert idp.form.pop("audience").rstrip("/") == grant_server.base
    assert idp.endpoint == "idp" and idp.form == {
        "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
        "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
        "resource": grant_server.url,
        "subject_token": ID_TOKEN,
        "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
        "client_id": "idp-client",
    }
    assert token.form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
    assert token.basic == (CLIENT_ID, CLIENT_SECRET)


async def test_cross_app_access_with_an_expired_id_token_says_to_store_a_fresh_one(
    grant_server: GrantServer, memory_keyring: MemoryKeyring
) -> None:
    store(grant_server.url, client_secret=CLIENT_SECRET, idp_id_token="stale-token")
    settings = {
        "grant": "cross-app-access",
        "clientId": CLIENT_ID,
        "idpTokenEndpoint": f"{grant_server.base}/idp/token",
        "idpClientId": "idp-client",
        "issuer": grant_server.base,
    }
    async with McpManager(remote(grant_server.url, **settings)) as manager:
        status = manager.status("remote")
    assert status.state is ServerState.FAILED and status.reason is not None
    assert "identity provider refused to exchange the ID token (ID token expired)" in status.reason
    assert "set-secret AGENT_DIR remote idp-id-token" in status.reason
    assert [r.endpoint for r in grant_server.state.requests] == ["idp"]


async def test_a_sign_in_server_offering_only_client_credentials_names_the_grant_instead_of_a_browser(
    grant_server: GrantServer, memory_keyring: MemoryKeyring
) -> None:
    grant_server.state.grants = ["client_credentials"]
    browser = BrowserStandIn()
    config = StreamableHttpServerConfig(type="streamable-http", url=grant_server.url, oauth=True)
    async with McpManager({"remote": config}, sign_in=browser) as manager:
        status = manager.status("remote")
    assert status.state is ServerState.FAILED and status.reason is not None
    assert "does not offer the authorization-code grant" in status.reason
    assert (
        "allows: client_credentials" in status.reason and "oauth.grant: client-credentials" in status.reason
    )
    assert browser.requests == []


async def test_an_issuer_that_is_not_the_servers_authorization_server_gets_no_credentials(
    memory_keyring: MemoryKeyring,
) -> None:
    with GrantServer() as server, OAuthMcpServer() as elsewhere:
        store(server.url, client_secret=CLIENT_SECRET)
        settings = {"grant": "client-credentials", "clientId": CLIENT_ID, "issuer": elsewhere.base}
        async with McpManager(remote(server.url, **settings)) as manager:
            status = manager.status("remote")
        assert status.state is ServerState.FAILED
        assert [r for r in server.state.requests if r.basic is not None] == []


async def test_metadata_for_another_resource_gets_no_credentials(memory_keyring: MemoryKeyring) -> None:
    with GrantServer(resource_path="/elsewhere") as server:
        store(server.url, client_secret=CLIENT_SECRET)
        async with McpManager(remote(server.url, grant="client-credentials", clientId=CLIENT_ID)) as manager:
            status = manager.status("remote")
        assert status.state is ServerState.FAILED and status.reason is not None
        assert "publishes OAuth metadata for another resource" in status.reason, status.reason
        assert server.state.requests == []
