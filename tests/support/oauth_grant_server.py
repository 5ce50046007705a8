"""An MCP server guarded by a small authorization server for the grants without a browser, and an
identity provider, all on one port of 127.0.0.1 (run in a thread).

- ``/mcp``: the SDK's MCP server as a resource server (its protected resource metadata names this
  host as the authorization server); it accepts only tokens ``/token`` issued.
- ``/token``: client_credentials with client_secret_basic, client_secret_post or private_key_jwt
  (the assertion checked against ``public_key``), and the jwt-bearer grant (an ID-JAG from the
  identity provider, with client_secret_basic).
- ``/idp/token``: RFC 8693 token exchange of ``id_token`` for an ID-JAG (SEP-990).

Every token request is recorded in ``requests`` so a test can say what the client sent.
"""

from __future__ import annotations

import base64
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import jwt
import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

CLIENT_ID = "machine-client"
CLIENT_SECRET = "s3cret-of-the-machine-client"  # a test value: what the server expects
ID_TOKEN = "id-token-of-the-user"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
_JAG_KEY = "the identity provider's signing key, shared with the authorization server"


@dataclass
class TokenRequest:
    """What one request to ``/token`` or ``/idp/token`` carried."""

    endpoint: str
    form: dict[str, str]
    basic: tuple[str, str] | None


@dataclass
class GrantState:
    """What the servers accept and what they saw."""

    grants: list[str] = field(default_factory=lambda: ["client_credentials", JWT_BEARER])
    public_key: Any = None  # the client's key for private_key_jwt
    requests: list[TokenRequest] = field(default_factory=list)
    tokens: set[str] = field(default_factory=set)


class GrantServer:
    """The three servers on one free port, listening as soon as it is constructed."""

    def __init__(self, *, resource_path: str = "/mcp") -> None:
        """``resource_path``: the resource its protected resource metadata names (another path than
        /mcp stands for metadata that is not this server's)."""
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(64)
        self.base = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        self.url = f"{self.base}/mcp"
        self.state = GrantState()
        server = MCPServer(
            "grants-demo",
            token_verifier=self,
            # The tokens are this test's own, checked in verify_token: no resource to compare.
            auth=AuthSettings(
                issuer_url=self.base,  # type: ignore[arg-type]
                resource_server_url=f"{self.base}{resource_path}",  # type: ignore[arg-type]
                validate_token_resource=False,
            ),
        )

        @server.tool()
        def whoami() -> str:
            """Says that the caller has a token."""
            return "signed in"

        app = server.streamable_http_app()
        app.router.routes[:0] = [
            Route("/.well-known/oauth-authorization-server", self._metadata),
            Route("/token", self._token, methods=["POST"]),
            Route("/idp/token", self._idp_token, methods=["POST"]),
        ]
        self._uvicorn = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
        self._thread = threading.Thread(
            target=self._uvicorn.run, kwargs={"sockets": [self._socket]}, daemon=True
        )
        self._thread.start()

    async def verify_token(self, token: str) -> AccessToken | None:
        if token not in self.state.tokens:
            return None
        return AccessToken(token=token, client_id=CLIENT_ID, scopes=[])

    async def _metadata(self, request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "issuer": self.base,
                "authorization_endpoint": f"{self.base}/authorize",
                "token_endpoint": f"{self.base}/token",
                "response_types_supported": ["code"],
                "grant_types_supported": self.state.grants,
                "token_endpoint_auth_methods_supported": [
                    "client_secret_basic",
                    "client_secret_post",
                    "private_key_jwt",
                ],
            }
        )

    async def _recorded(self, request: Request, endpoint: str) -> TokenRequest:
        form = {key: str(value) for key, value in (await request.form()).items()}
        basic = None
        header = request.headers.get("authorization", "")
        if header.startswith("Basic "):
            user, _, password = base64.b64decode(header[6:]).decode().partition(":")
            basic = (unquote(user), unquote(password))
        recorded = TokenRequest(endpoint, form, basic)
        self.state.requests.append(recorded)
        return recorded

    def _issued(self) -> JSONResponse:
        token = f"at-{secrets.token_urlsafe(16)}"
        self.state.tokens.add(token)
        return JSONResponse({"access_token": token, "token_type": "Bearer", "expires_in": 3600})

    async def _token(self, request: Request) -> JSONResponse:
        seen = await self._recorded(request, "token")
        grant = seen.form.get("grant_type", "")
        if grant not in self.state.grants:
            return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)
        try:
            ok = self._client_proven(seen, grant)
        except jwt.InvalidTokenError:
            ok = False
        return self._issued() if ok else JSONResponse({"error": "invalid_client"}, status_code=401)

    def _client_proven(self, seen: TokenRequest, grant: str) -> bool:
        """Raises:
        jwt.InvalidTokenError: an assertion that does not verify."""
        if grant == JWT_BEARER:
            claims = jwt.decode(
                seen.form.get("assertion", ""),
                _JAG_KEY,
                algorithms=["HS256"],
                audience=[self.base, f"{self.base}/"],
            )
            return seen.basic == (CLIENT_ID, CLIENT_SECRET) and claims["resource"] == self.url
        elif "client_assertion" in seen.form:
            claims = jwt.decode(
                seen.form["client_assertion"],
                self.state.public_key,
                algorithms=["ES256", "RS256"],
                audience=[self.base, f"{self.base}/"],
            )
            return bool(claims["iss"] == claims["sub"] == CLIENT_ID)
        pair = seen.basic or (seen.form.get("client_id"), seen.form.get("client_secret"))
        return pair == (CLIENT_ID, CLIENT_SECRET)

    async def _idp_token(self, request: Request) -> JSONResponse:
        seen = await self._recorded(request, "idp")
        if seen.form.get("subject_token") != ID_TOKEN:
            return JSONResponse(
                {"error": "invalid_grant", "error_description": "ID token expired"}, status_code=400
            )
        now = int(time.time())
        jag = jwt.encode(
            {
                "iss": f"{self.base}/idp",
                "sub": "user@example.com",
                "aud": seen.form["audience"],
                "resource": seen.form["resource"],
                "client_id": CLIENT_ID,
                "iat": now,
                "exp": now + 300,
            },
            _JAG_KEY,
            algorithm="HS256",
            headers={"typ": "oauth-id-jag+jwt"},
        )
        return JSONResponse(
            {
                "access_token": jag,
                "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                "token_type": "N_A",
            }
        )

    def close(self) -> None:
        self._uvicorn.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()

    def __enter__(self) -> GrantServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
