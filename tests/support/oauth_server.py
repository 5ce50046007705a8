"""An OAuth-protected MCP server built with the SDK's server-side auth, run in a thread on 127.0.0.1.

The SDK serves the protocol's endpoints (protected-resource and authorization-server metadata,
dynamic client registration, /authorize, /token with the PKCE check, /revoke) and guards /mcp with
bearer auth; this module supplies the in-memory provider behind them. Its /authorize approves at
once and redirects back with a code, standing in for the person at the sign-in page. The test
controls it directly: expire or revoke every token, count the grants.
"""

from __future__ import annotations

import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx2
import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.routes import build_metadata
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from agent_core.mcp.oauth import SignInRequest

SCOPE = "mcp"


@dataclass
class InMemoryAuthProvider:
    """The SDK's ``OAuthAuthorizationServerProvider``, in dicts. Thread-safe enough: the GIL, one writer."""

    reported_lifetime: int = 3600  # the `expires_in` told to the client
    clients: dict[str, OAuthClientInformationFull] = field(default_factory=dict)
    codes: dict[str, AuthorizationCode] = field(default_factory=dict)
    access_tokens: dict[str, AccessToken] = field(default_factory=dict)
    refresh_tokens: dict[str, RefreshToken] = field(default_factory=dict)
    metadata_documents: dict[str, OAuthClientInformationFull] = field(default_factory=dict)
    document_clients_used: int = 0
    authorizations: int = 0
    code_grants: int = 0
    refresh_grants: int = 0

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if client_id in self.metadata_documents:
            # A URL client id: the client as its metadata document describes it (fetched, as an
            # authorization server that supports client ID metadata documents does).
            self.document_clients_used += 1
            return self.metadata_documents[client_id]
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        # The person signs in and approves at once.
        self.authorizations += 1
        code = secrets.token_urlsafe(32)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        self.code_grants += 1
        return self._issue(
            authorization_code.client_id, authorization_code.scopes, authorization_code.resource
        )

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh_tokens.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh_tokens.pop(refresh_token.token, None)  # rotated
        self.refresh_grants += 1
        return self._issue(refresh_token.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        access = self.access_tokens.get(token)
        if access is None or (access.expires_at is not None and access.expires_at < time.time()):
            return None
        return access

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.revoke_everything()

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = f"at-{secrets.token_urlsafe(24)}", f"rt-{secrets.token_urlsafe(24)}"
        self.access_tokens[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, resource=resource
        )
        self.refresh_tokens[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(
            access_token=access,
            token_type="Bearer",
            expires_in=self.reported_lifetime,
            refresh_token=refresh,
            scope=" ".join(scopes),
        )

    def expire_access_tokens(self) -> None:
        """Every access token issued so far is expired (the refresh tokens still work)."""
        for token in self.access_tokens.values():
            token.expires_at = 0

    def revoke_everything(self) -> None:
        """Every access and refresh token is revoked: only a new sign-in helps."""
        self.access_tokens.clear()
        self.refresh_tokens.clear()


def _metadata_with_documents(settings: AuthSettings) -> Route:
    """The SDK's authorization server metadata, saying client ID metadata documents are supported."""
    metadata = build_metadata(
        settings.issuer_url,
        None,
        settings.client_registration_options or ClientRegistrationOptions(),
        settings.revocation_options or RevocationOptions(),
    )
    document = {
        **metadata.model_dump(mode="json", exclude_none=True),
        "client_id_metadata_document_supported": True,
    }

    async def answer(request: Request) -> Response:
        return JSONResponse(document)

    return Route("/.well-known/oauth-authorization-server", answer)


class OAuthMcpServer:
    """The server, listening on a free port of 127.0.0.1 as soon as it is constructed."""

    def __init__(self, *, registration: bool = True, metadata_documents: bool = False) -> None:
        """``registration``: the authorization server offers dynamic client registration;
        ``metadata_documents``: its metadata says it accepts client ID metadata documents."""
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(64)  # connections wait in the backlog until uvicorn serves: no start race
        port = self._socket.getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"
        self.url = f"{self.base}/mcp"
        self.provider = InMemoryAuthProvider()
        settings = AuthSettings(
            issuer_url=self.base,  # type: ignore[arg-type]
            resource_server_url=self.url,  # type: ignore[arg-type]
            validate_token_resource=True,
            required_scopes=[SCOPE],
            client_registration_options=ClientRegistrationOptions(
                enabled=registration, valid_scopes=[SCOPE], default_scopes=[SCOPE]
            ),
            revocation_options=RevocationOptions(enabled=True),
        )
        server = MCPServer("oauth-demo", auth_server_provider=self.provider, auth=settings)

        @server.tool()
        def whoami() -> str:
            """Says that the caller is signed in."""
            return "signed in"

        app = server.streamable_http_app()
        if metadata_documents:
            app.router.routes.insert(0, _metadata_with_documents(settings))
        self._uvicorn = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self._thread = threading.Thread(target=self._serve, name="oauth-mcp-server", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        self._uvicorn.run(sockets=[self._socket])

    def close(self) -> None:
        self._uvicorn.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()

    def __enter__(self) -> OAuthMcpServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class BrowserStandIn:
    """The user's choice and the browser: records each sign-in request, then (if it signs in) follows
    the sign-in URL, whose redirect lands on ContextDesk's loopback listener like a browser's would."""

    def __init__(self, *, signs_in: bool = True) -> None:
        self.signs_in = signs_in
        self.requests: list[SignInRequest] = []

    async def __call__(self, request: SignInRequest) -> bool:
        self.requests.append(request)
        if self.signs_in:
            async with httpx2.AsyncClient(follow_redirects=True, timeout=10) as browser:
                page = await browser.get(request.url)
                assert page.status_code == 200, page.text
        return self.signs_in
