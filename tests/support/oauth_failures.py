"""An MCP server whose OAuth sign-in fails in one chosen way, run in a thread on 127.0.0.1.

Real HTTP, shaped like the failures met in the wild: a server without dynamic client registration
(its ``/register`` is the site's HTML 404 page), a registration refused with an OAuth error, a token
endpoint that refuses the code, protected-resource metadata that answers 500, an authorization
server that redirects back with ``error=access_denied``, one that is not there at all, or a sign-in
that works but whose token the server refuses for want of a scope (``403 insufficient_scope``), also
after the step-up sign-in. Without a token ``/mcp`` answers 401.
"""

from __future__ import annotations

import socket
import threading
from typing import Any, Literal
from urllib.parse import urlencode

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

__all__ = ["FailingOAuthServer", "Failure"]

Failure = Literal[
    "no-registration",
    "registration-refused",
    "token-refused",
    "metadata-error",
    "access-denied",
    "authorization-server-down",
    "scope-refused",
]

# The HTML 404 page of a site that has no /register: what the SDK's error carries whole.
NOT_FOUND_PAGE = (
    "<!DOCTYPE html><html><head><title>404 Not Found</title><style>body{font-family:sans-serif}</style>"
    "</head><body><h1>Not Found</h1><p>The requested URL was not found on this server.</p>"
    + "<!-- padding -->" * 400
    + "</body></html>"
)


def _closed_port() -> int:
    """A port of 127.0.0.1 where nothing listens (bound a moment, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


class FailingOAuthServer:
    """Listens on a free port as soon as it is constructed; ``failure`` says how the sign-in fails."""

    def __init__(self, failure: Failure) -> None:
        self.failure = failure
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(64)
        self.base = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        self.url = f"{self.base}/mcp"
        app = Starlette(
            routes=[
                Route("/mcp", self._mcp, methods=["GET", "POST", "DELETE"]),
                Route("/.well-known/oauth-protected-resource/mcp", self._resource_metadata),
                Route("/.well-known/oauth-authorization-server", self._server_metadata),
                Route("/register", self._register, methods=["POST"]),
                Route("/authorize", self._authorize),
                Route("/token", self._token, methods=["POST"]),
            ]
        )
        self._uvicorn = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self._thread = threading.Thread(
            target=self._uvicorn.run, kwargs={"sockets": [self._socket]}, daemon=True
        )
        self._thread.start()

    async def _mcp(self, request: Request) -> Response:
        metadata = f"{self.base}/.well-known/oauth-protected-resource/mcp"
        if request.headers.get("Authorization"):
            challenge = f'Bearer error="insufficient_scope", scope="admin", resource_metadata="{metadata}"'
            return Response(status_code=403, headers={"WWW-Authenticate": challenge})
        return Response(
            status_code=401, headers={"WWW-Authenticate": f'Bearer resource_metadata="{metadata}"'}
        )

    async def _resource_metadata(self, request: Request) -> Response:
        if self.failure == "metadata-error":
            return HTMLResponse("<html><body><h1>502 Bad Gateway</h1></body></html>", status_code=500)
        issuer = (
            self.base if self.failure != "authorization-server-down" else f"http://127.0.0.1:{_closed_port()}"
        )
        return JSONResponse({"resource": self.url, "authorization_servers": [issuer]})

    async def _server_metadata(self, request: Request) -> Response:
        metadata: dict[str, Any] = {
            "issuer": self.base,
            "authorization_endpoint": f"{self.base}/authorize",
            "token_endpoint": f"{self.base}/token",
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
        }
        if self.failure != "no-registration":
            metadata["registration_endpoint"] = f"{self.base}/register"
        return JSONResponse(metadata)

    async def _register(self, request: Request) -> Response:
        if self.failure == "no-registration":
            return HTMLResponse(NOT_FOUND_PAGE, status_code=404)
        if self.failure == "registration-refused":
            return JSONResponse(
                {"error": "invalid_client_metadata", "error_description": "redirect_uri is not allowed"},
                status_code=400,
            )
        body = await request.json()
        return JSONResponse(
            {**body, "client_id": "client-1", "token_endpoint_auth_method": "none"}, status_code=201
        )

    async def _authorize(self, request: Request) -> Response:
        query = request.query_params
        answer = (
            {"error": "access_denied", "state": query.get("state", "")}
            if self.failure == "access-denied"
            else {"code": "code-1", "state": query.get("state", "")}
        )
        return RedirectResponse(f"{query['redirect_uri']}?{urlencode(answer)}", status_code=302)

    async def _token(self, request: Request) -> Response:
        if self.failure == "scope-refused":
            return JSONResponse({"access_token": "token-1", "token_type": "Bearer", "expires_in": 3600})
        return JSONResponse(
            {"error": "invalid_grant", "error_description": "The authorization code has expired"},
            status_code=400,
        )

    def close(self) -> None:
        self._uvicorn.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()

    def __enter__(self) -> FailingOAuthServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
