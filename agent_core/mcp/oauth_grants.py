"""The grants without a browser, through the SDK's extension providers: client credentials (the app
signs in as itself, with a client secret or a private-key JWT) and enterprise cross-app access
(SEP-990: an identity provider's ID token is exchanged for an ID-JAG, which the SDK presents to the
server's authorization server).

Which authorization server gets the credentials: ``oauth.issuer`` when set; else the first one the
server's protected resource metadata names, read once before the SDK's flow starts (as the
sign-in flow does). The SDK then checks the authorization server's metadata against that issuer.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from typing import Literal

import anyio
import httpx2
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.auth.utils import (
    build_protected_resource_metadata_discovery_urls,
    create_oauth_metadata_request,
    extract_resource_metadata_from_www_auth,
    handle_protected_resource_response,
)
from mcp.shared.auth_utils import check_resource_allowed, resource_url_from_server_url

from agent_core.agent.oauth_settings import OAuthConfig
from agent_core.mcp.oauth_clients import secret_fix
from agent_core.mcp.oauth_signing import signing_algorithm
from agent_core.mcp.oauth_storage import KeyringTokenStorage, OAuthSecretKind
from agent_core.mcp.sign_in_errors import SignInRequiredError

__all__ = ["grant_auth"]

TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
_IDP_TIMEOUT = httpx2.Timeout(30.0)
_MAX_IDP_ANSWER_BYTES = 256_000  # an ID-JAG is a few kilobytes

SecretMethod = Literal["client_secret_basic", "client_secret_post"]
Report = Callable[[SignInRequiredError], SignInRequiredError]


def grant_auth(
    server: str, server_url: str, settings: OAuthConfig, storage: KeyringTokenStorage, report: Report
) -> httpx2.Auth:
    """The ``httpx2.Auth`` for a server set to ``client-credentials`` or ``cross-app-access``.

    Reads the keyring (blocking): call it off the event loop.

    Raises:
        SignInRequiredError: a secret the grant needs is not stored, or the stored key is unusable.
    """
    client_id = settings.client_id
    assert client_id is not None, "OAuthConfig requires clientId for these grants"
    scope = " ".join(settings.scopes) if settings.scopes else None
    if settings.grant == "cross-app-access":
        build = _cross_app(server, server_url, settings, storage, report, client_id, scope)
    else:
        build = _client_credentials(server, server_url, settings, storage, client_id, scope)
    return _IssuerFromServer(server, server_url, settings.issuer, build, report)


def _secret_method(server: str, settings: OAuthConfig, grant: str) -> SecretMethod:
    method = settings.client_auth or "client_secret_basic"
    if method == "client_secret_basic" or method == "client_secret_post":
        return method
    raise SignInRequiredError(
        server,
        f"MCP server '{server}': {grant} proves the client with client_secret_basic or client_secret_post "
        f"here, not {method}. Fix: set oauth.clientAuth to one of them (or remove it: client_secret_basic).",
    )


def _cross_app(
    server: str,
    server_url: str,
    settings: OAuthConfig,
    storage: KeyringTokenStorage,
    report: Report,
    client_id: str,
    scope: str | None,
) -> Callable[[str], httpx2.Auth]:
    method = _secret_method(server, settings, "cross-app access")
    secret = _required(server, storage, "client-secret", f"the client secret of '{client_id}'")
    exchange = _IdTokenExchange(server, settings, storage, report)

    def build(issuer: str) -> httpx2.Auth:
        return IdentityAssertionOAuthProvider(
            server_url=server_url,
            storage=storage,
            client_id=client_id,
            client_secret=secret,
            issuer=issuer,
            assertion_provider=exchange,
            scope=scope,
            token_endpoint_auth_method=method,
        )

    return build


def _client_credentials(
    server: str,
    server_url: str,
    settings: OAuthConfig,
    storage: KeyringTokenStorage,
    client_id: str,
    scope: str | None,
) -> Callable[[str], httpx2.Auth]:
    """With a stored private key (or ``clientAuth: private_key_jwt``) the client signs a JWT
    assertion (RFC 7523); else it sends its secret (client_secret_basic unless told post)."""
    key = storage.secret("private-key")
    if settings.client_auth == "private_key_jwt" or (settings.client_auth is None and key):
        key = key or _required(server, storage, "private-key", "the private key")
        assertion = SignedJWTParameters(
            issuer=client_id,
            subject=client_id,
            signing_key=key,
            signing_algorithm=settings.signing_algorithm or signing_algorithm(server, key),
        ).create_assertion_provider()

        def with_key(issuer: str) -> httpx2.Auth:
            return PrivateKeyJWTOAuthProvider(server_url, storage, client_id, assertion, scope, issuer)

        return with_key
    method = _secret_method(server, settings, "the client-credentials grant")
    secret = _required(server, storage, "client-secret", f"the client secret of '{client_id}'")

    def with_secret(issuer: str) -> httpx2.Auth:
        return ClientCredentialsOAuthProvider(server_url, storage, client_id, secret, method, scope, issuer)

    return with_secret


def _required(server: str, storage: KeyringTokenStorage, kind: OAuthSecretKind, what: str) -> str:
    value = storage.secret(kind)
    if value is None:
        raise SignInRequiredError(
            server, f"MCP server '{server}' needs {what}, and none is stored. {secret_fix(server, kind)}"
        )
    return value


class _IssuerFromServer(httpx2.Auth):
    """Builds the SDK provider once the authorization server is known, then hands every request to it.

    With ``oauth.issuer`` set, that is at once. Otherwise the first request goes out without a
    token; its 401 leads to the server's protected resource metadata, whose first authorization
    server is the issuer (then the SDK's flow starts from that request again).
    """

    requires_response_body = True

    def __init__(
        self,
        server: str,
        server_url: str,
        issuer: str | None,
        build: Callable[[str], httpx2.Auth],
        report: Report,
    ) -> None:
        self._server = server
        self._url = server_url
        self._build = build
        self._report = report
        self._inner = build(issuer) if issuer is not None else None
        self._lock = anyio.Lock()

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        if self._inner is None:
            async with self._lock:
                if self._inner is None:
                    response = yield request
                    if response.status_code != 401:
                        return
                    issuer: str | None = None
                    www_url = extract_resource_metadata_from_www_auth(response)
                    for url in build_protected_resource_metadata_discovery_urls(www_url, self._url):
                        metadata = await handle_protected_resource_response(
                            (yield create_oauth_metadata_request(url))
                        )
                        if metadata is not None and metadata.authorization_servers:
                            self._check_resource(str(metadata.resource) if metadata.resource else None)
                            issuer = str(metadata.authorization_servers[0])
                            break
                    if issuer is None:
                        raise self._report(
                            SignInRequiredError(
                                self._server,
                                f"MCP server '{self._server}' asks for OAuth but publishes no protected "
                                "resource metadata naming its authorization server. Fix: set oauth.issuer "
                                "to the authorization server's issuer URL.",
                            )
                        )
                    self._inner = self._build(issuer)
        flow = self._inner.async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                outgoing = await flow.asend((yield outgoing))
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    def _check_resource(self, resource: str | None) -> None:
        """Metadata for another resource does not choose where this server's credentials go (RFC 8707)."""
        expected = resource_url_from_server_url(self._url)
        if resource is not None and not check_resource_allowed(expected, resource):
            raise self._report(
                SignInRequiredError(
                    self._server,
                    f"MCP server '{self._server}' publishes OAuth metadata for another resource ({resource[:200]}, "
                    f"not {expected}), so no credentials were sent. Fix: check `url` in agent.yaml, or set "
                    "oauth.issuer to the authorization server's issuer URL.",
                )
            )


class _IdTokenExchange:
    """The SDK's ``assertion_provider`` for cross-app access: the ID token stored for the server is
    exchanged at the identity provider (RFC 8693) for an ID-JAG naming the authorization server and
    the MCP server. Signing in to the identity provider itself is not ContextDesk's: the ID token is
    what the user stored (``contextdesk mcp set-secret … idp-id-token``)."""

    def __init__(
        self, server: str, settings: OAuthConfig, storage: KeyringTokenStorage, report: Report
    ) -> None:
        assert settings.idp_token_endpoint is not None and settings.idp_client_id is not None
        self._server = server
        self._endpoint = settings.idp_token_endpoint
        self._client_id = settings.idp_client_id
        self._storage = storage
        self._report = report

    async def __call__(self, audience: str, resource: str) -> str:
        id_token = await anyio.to_thread.run_sync(self._storage.secret, "idp-id-token")
        if id_token is None:
            raise self._fail(
                f"needs your identity provider's ID token, and none is stored. {secret_fix(self._server, 'idp-id-token')}"
            )
        form = {
            "grant_type": TOKEN_EXCHANGE_GRANT,
            "requested_token_type": ID_JAG_TYPE,
            "audience": audience,
            "resource": resource,
            "subject_token": id_token,
            "subject_token_type": ID_TOKEN_TYPE,
            "client_id": self._client_id,
        }
        try:
            async with (
                httpx2.AsyncClient(timeout=_IDP_TIMEOUT, follow_redirects=False) as client,
                client.stream(
                    "POST", self._endpoint, data=form, headers={"Accept": "application/json"}
                ) as answer,
            ):
                body = await _bounded(answer)
        except httpx2.HTTPError as error:
            raise self._fail(
                f"cannot reach the identity provider at {self._endpoint} ({type(error).__name__}). "
                "Fix: check oauth.idpTokenEndpoint and the network."
            ) from error
        return self._id_jag(answer.status_code, body)

    def _id_jag(self, status: int, body: bytes) -> str:
        import json

        try:
            answer = json.loads(body) if body else {}
        except ValueError:
            answer = {}
        answer = answer if isinstance(answer, dict) else {}
        if status != 200:
            reason = str(answer.get("error_description") or answer.get("error") or f"HTTP {status}")[:200]
            raise self._fail(
                f"the identity provider refused to exchange the ID token ({reason}). Fix: store a fresh ID "
                f"token (it may have expired): `contextdesk mcp set-secret AGENT_DIR {self._server} idp-id-token`."
            )
        token = answer.get("access_token")
        if not isinstance(token, str) or answer.get("issued_token_type") != ID_JAG_TYPE:
            raise self._fail(
                "the identity provider's answer holds no ID-JAG (issued_token_type "
                f"{str(answer.get('issued_token_type'))[:100]}). Fix: check that oauth.idpTokenEndpoint "
                "supports cross-app access (SEP-990)."
            )
        return token

    def _fail(self, what: str) -> SignInRequiredError:
        return self._report(SignInRequiredError(self._server, f"MCP server '{self._server}': {what}"))


async def _bounded(answer: httpx2.Response) -> bytes:
    body = bytearray()
    async for chunk in answer.aiter_bytes():
        body.extend(chunk)
        if len(body) > _MAX_IDP_ANSWER_BYTES:
            break
    return bytes(body[:_MAX_IDP_ANSWER_BYTES])
