"""The loopback listener of an OAuth sign-in: a one-shot HTTP server on 127.0.0.1 that receives the
authorization server's redirect (RFC 8252 §7.3), and how its port is chosen."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from urllib.parse import parse_qs, urlsplit

from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull

__all__ = ["SIGN_IN_TIMEOUT_SECONDS", "AuthorizationRefusedError", "LoopbackCallback", "callback_port"]

SIGN_IN_TIMEOUT_SECONDS = 600.0  # how long the listener waits for the browser to come back
_MAX_REQUEST_BYTES = 16_384  # the callback's request line and headers; a browser sends far less


class LoopbackCallback:
    """A one-shot HTTP listener on 127.0.0.1 that receives the authorization server's redirect."""

    def __init__(self, port: int) -> None:
        self.port = port
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[AuthorizationCodeResult] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}/callback"

    async def start(self) -> None:
        """Listen (again); a previous sign-in's result is forgotten.

        Raises:
            OSError: the port is taken.
        """
        await self.close()
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    async def wait(self, timeout: float = SIGN_IN_TIMEOUT_SECONDS) -> AuthorizationCodeResult:
        """The code the browser brought back.

        Raises:
            TimeoutError: nothing came back in time.
        """
        assert self._result is not None, "start() first"
        try:
            async with asyncio.timeout(timeout):
                return await asyncio.shield(self._result)
        finally:
            await self.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(10):
                head = await reader.readuntil(b"\r\n\r\n")
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        line = head[:_MAX_REQUEST_BYTES].split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        target = urlsplit(parts[1]) if len(parts) == 3 and parts[0] == "GET" else None
        query = parse_qs(target.query) if target is not None and target.path == "/callback" else {}
        code, state = query.get("code", [None])[0], query.get("state", [None])[0]
        error = query.get("error", [None])[0]
        if code and self._result is not None and not self._result.done():
            self._result.set_result(
                AuthorizationCodeResult(code=code, state=state, iss=query.get("iss", [None])[0])
            )
            body, status = "Signed in. You can close this tab and return to ContextDesk.", "200 OK"
        elif error and self._result is not None and not self._result.done():
            self._result.set_exception(AuthorizationRefusedError(error[:200]))
            body, status = "The sign-in was refused. You can close this tab.", "200 OK"
        else:
            body, status = "Not found.", "404 Not Found"
        payload = f"<!doctype html><title>ContextDesk</title><p>{body}</p>".encode()
        writer.write(
            f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
            + payload
        )
        with contextlib.suppress(ConnectionError):  # the browser went away; nothing to tell it
            await writer.drain()
        writer.close()


class AuthorizationRefusedError(Exception):
    """The authorization server redirected back with an ``error`` instead of a code."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def callback_port(configured: int | None, stored: OAuthClientInformationFull | None) -> int:
    """The port to listen on: the one configured for a pre-registered client, else the one a stored
    registration's redirect URI names (a new port would not match it), else any free one."""
    return configured or _registered_port(stored) or _free_port()


def _registered_port(client: OAuthClientInformationFull | None) -> int | None:
    """The loopback port a stored registration's redirect URI names (a new one would not match it)."""
    for uri in (client.redirect_uris or []) if client is not None else []:
        parsed = urlsplit(str(uri))
        if parsed.hostname == "127.0.0.1" and parsed.port and parsed.path == "/callback":
            return parsed.port
    return None
