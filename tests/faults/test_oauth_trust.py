"""A cloned agent folder cannot send the user's stored OAuth secrets somewhere new without being
trusted again: where they go (grant, client, issuer, identity provider) is part of what is trusted."""

from __future__ import annotations

from pathlib import Path

from agent_core.agent.schema import OAuthConfig, StreamableHttpServerConfig
from agent_core.agent.server_trust import ServerTrust, fingerprint, launch_text

URL = "https://mcp.payroll.example/mcp"


def remote(oauth: bool | OAuthConfig) -> StreamableHttpServerConfig:
    return StreamableHttpServerConfig(type="streamable-http", url=URL, oauth=oauth)


CROSS_APP = OAuthConfig(
    grant="cross-app-access",
    client_id="payroll-client",
    idp_token_endpoint="https://idp.example.com/token",
    idp_client_id="idp-client",
)


def test_changing_where_the_secrets_go_needs_trust_again(tmp_path: Path, isolated_user_dirs: Path) -> None:
    trust = ServerTrust()
    trust.trust(tmp_path, {"payroll": remote(CROSS_APP)})
    assert trust.untrusted(tmp_path, {"payroll": remote(CROSS_APP)}) == []
    for change in (
        {"idp_token_endpoint": "https://idp.attacker.example/token"},
        {"issuer": "https://auth.attacker.example"},
        {"client_id": "someone-else"},
    ):
        edited = remote(CROSS_APP.model_copy(update=change))
        assert [s.name for s in trust.untrusted(tmp_path, {"payroll": edited})] == ["payroll"], change


def test_a_server_that_only_signs_in_keeps_the_trust_it_had() -> None:
    assert fingerprint(remote(True)) == fingerprint(remote(False)) == fingerprint(remote(OAuthConfig()))


def test_the_trust_question_shows_where_the_secrets_go() -> None:
    assert launch_text(remote(CROSS_APP)).split("\n") == [
        f"connects to {URL}",
        "OAuth: grant cross-app-access, clientId payroll-client, idpTokenEndpoint "
        "https://idp.example.com/token, idpClientId idp-client",
    ]
