"""OAuth sign-in for remote MCP servers: the SDK's flow, tokens in the keyring, the browser by the user's choice.

The SDK's ``OAuthClientProvider`` (an ``httpx.Auth``) does discovery, dynamic client registration,
authorization code with PKCE and refresh. This module gives it what it leaves to the client:

- where tokens live: the operating system's keyring (:class:`KeyringTokenStorage`), never a file;
- how the user signs in: a :class:`SignInHandler` from the front end is shown the sign-in URL and
  decides whether to open it (nothing is opened by the core);
- how the code comes back: a one-shot listener on 127.0.0.1 (:class:`LoopbackCallback`).

Without a handler (a workflow, a headless run) a server whose token expired without refresh, or
was revoked, fails with :class:`SignInRequiredError`, whose message says to sign in again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar
from urllib.parse import parse_qs, urlsplit

from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl, BaseModel, ValidationError

from agent_core.agent.schema import OAuthConfig
from agent_core.mcp.errors import McpServerError

__all__ = [
    "KEYRING_SERVICE",
    "KeyringTokenStorage",
    "LoopbackCallback",
    "SignInCancelledError",
    "SignInHandler",
    "SignInRequest",
    "SignInRequiredError",
    "oauth_provider",
    "sign_out",
]

logger = logging.getLogger(__name__)

KEYRING_SERVICE = "contextdesk-mcp-oauth"
SIGN_IN_TIMEOUT_SECONDS = 600.0  # how long the listener waits for the browser to come back
_MAX_REQUEST_BYTES = 16_384  # the callback's request line and headers; a browser sends far less
_MAX_STORED_CHARS = 100_000  # a token record bigger than this is not the server's to make us keep


class _StoredTokens(BaseModel):
    """The keyring entry: the SDK's token and when its access token expires."""

    token: OAuthToken
    expires_at: float | None = None


_Record = TypeVar("_Record", _StoredTokens, OAuthClientInformationFull)


class SignInRequiredError(McpServerError):
    """The server needs the user to sign in, and nobody can be asked (or the sign-in failed)."""


class SignInCancelledError(SignInRequiredError):
    """The user chose not to sign in."""


@dataclass(frozen=True)
class SignInRequest:
    """What a front end shows: which server wants a sign-in, and the whole URL to open."""

    server: str
    server_url: str
    url: str


class SignInHandler(Protocol):
    """Shows ``request.url`` to the user; True once the user chose to open it (the front end opens
    it), False when they cancelled. It must not block the event loop."""

    async def __call__(self, request: SignInRequest) -> bool: ...


class KeyringTokenStorage:
    """The SDK's ``TokenStorage`` over the OS keyring: one entry for the tokens, one for the client.

    Entries are keyed by the server's URL, so every agent that uses the same server shares one sign-in.
    Keyring calls may block (D-Bus, a locked keyring), so they run in a thread.

    Raises (each method):
        SignInRequiredError: no keyring is available, or it refused the entry.
    """

    def __init__(self, server: str, server_url: str) -> None:
        self._server = server
        self._url = server_url

    async def get_tokens(self) -> OAuthToken | None:
        stored = _parse(_StoredTokens, await asyncio.to_thread(self._read, "tokens"))
        return stored.token if stored is not None else None

    async def expires_at(self) -> float | None:
        """When the stored access token expires (Unix time), so a restart refreshes instead of failing."""
        stored = _parse(_StoredTokens, await asyncio.to_thread(self._read, "tokens"))
        return stored.expires_at if stored is not None else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires_at = time.time() + int(tokens.expires_in) if tokens.expires_in is not None else None
        record = _StoredTokens(token=tokens, expires_at=expires_at)
        await asyncio.to_thread(self._write, "tokens", record.model_dump_json(exclude_none=True))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return _parse(OAuthClientInformationFull, await asyncio.to_thread(self._read, "client"))

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        await asyncio.to_thread(self._write, "client", client_info.model_dump_json(exclude_none=True))

    def client_info_now(self) -> OAuthClientInformationFull | None:
        """The stored client registration, read on the calling thread (used before connecting)."""
        return _parse(OAuthClientInformationFull, self._read("client"))

    def clear(self) -> None:
        """Forget the tokens and the client registration."""
        import keyring
        from keyring.errors import KeyringError, PasswordDeleteError

        for kind in ("tokens", "client"):
            try:
                keyring.delete_password(KEYRING_SERVICE, self._user(kind))
            except PasswordDeleteError:
                pass
            except KeyringError as error:
                raise self._keyring_error(error) from error

    def _user(self, kind: str) -> str:
        return f"{kind}:{self._url}"

    def _read(self, kind: str) -> str | None:
        import keyring
        from keyring.errors import KeyringError

        self._require_keyring()
        try:
            value = keyring.get_password(KEYRING_SERVICE, self._user(kind))
        except KeyringError as error:
            raise self._keyring_error(error) from error
        return value if value is None or len(value) <= _MAX_STORED_CHARS else None

    def _write(self, kind: str, value: str) -> None:
        import keyring
        from keyring.errors import KeyringError

        self._require_keyring()
        if len(value) > _MAX_STORED_CHARS:
            raise SignInRequiredError(
                self._server,
                f"MCP server '{self._server}' sent a sign-in record of {len(value):,} characters; "
                "ContextDesk keeps at most 100,000. Fix: ask the server's operator.",
            )
        try:
            keyring.set_password(KEYRING_SERVICE, self._user(kind), value)
        except KeyringError as error:
            raise self._keyring_error(error) from error

    def _require_keyring(self) -> None:
        from agent_core.agent.keyring_secrets import keyring_available

        if not keyring_available():
            # Fail closed: a token is never kept in a file instead.
            raise SignInRequiredError(
                self._server,
                f"MCP server '{self._server}' needs an OAuth sign-in, and its tokens are kept only in the "
                "system keyring, which is not available here. Fix: install and unlock a keyring "
                "(e.g. GNOME Keyring or KWallet), or use a token in `headers` (Authorization: env://TOKEN).",
            )

    def _keyring_error(self, error: Exception) -> SignInRequiredError:
        return SignInRequiredError(
            self._server,
            f"MCP server '{self._server}': the keyring refused its sign-in ({type(error).__name__}). "
            "Fix: unlock the keyring, then restart the server.",
        )


def _parse(model: type[_Record], text: str | None) -> _Record | None:
    if not text:
        return None
    try:
        return model.model_validate_json(text)
    except ValidationError:
        logger.warning("a stored OAuth %s record is unreadable; signing in again", model.__name__)
        return None


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
            self._result.set_exception(_AuthorizationRefused(error[:200]))
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


class _AuthorizationRefused(Exception):
    """The authorization server redirected back with an ``error`` instead of a code."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _registered_port(client: OAuthClientInformationFull | None) -> int | None:
    """The loopback port a stored registration's redirect URI names (a new one would not match it)."""
    for uri in (client.redirect_uris or []) if client is not None else []:
        parsed = urlsplit(str(uri))
        if parsed.hostname == "127.0.0.1" and parsed.port and parsed.path == "/callback":
            return parsed.port
    return None


class _Provider(OAuthClientProvider):
    """The SDK's provider, which forgets a stored token's expiry on load; this one restores it, so an
    expired token is refreshed at start rather than sent, refused and answered with a new sign-in."""

    def __init__(self, storage: KeyringTokenStorage, **kwargs: Any) -> None:
        super().__init__(storage=storage, **kwargs)
        self._keyring = storage

    async def _initialize(self) -> None:
        await super()._initialize()
        if self.context.current_tokens is not None:
            self.context.token_expiry_time = await self._keyring.expires_at()


def oauth_provider(
    server: str,
    server_url: str,
    settings: OAuthConfig,
    sign_in: SignInHandler | None,
    *,
    waiting_on_user: Callable[[bool], None] | None = None,
    on_sign_in_error: Callable[[SignInRequiredError], None] | None = None,
) -> OAuthClientProvider:
    """The SDK's OAuth ``httpx.Auth`` for one server, with keyring storage and the user's sign-in.

    Reads the keyring (blocking): call it off the event loop. ``waiting_on_user(True/False)`` brackets
    the time the user has the sign-in page, so a start deadline can pause meanwhile;
    ``on_sign_in_error`` hears why a sign-in failed (the SDK's transport ends the connection without it).

    Raises:
        SignInRequiredError: no keyring is available.
    """
    storage = KeyringTokenStorage(server, server_url)
    # A registered client is bound to its redirect URI: reuse its port so the registration stays valid.
    callback = LoopbackCallback(_registered_port(storage.client_info_now()) or _free_port())

    def failed(error: SignInRequiredError) -> SignInRequiredError:
        if on_sign_in_error is not None:
            on_sign_in_error(error)
        return error

    async def show_sign_in(url: str) -> None:
        if sign_in is None:
            raise failed(
                SignInRequiredError(
                    server,
                    f"MCP server '{server}' needs you to sign in again: its sign-in expired or was revoked "
                    "(or you never signed in). Fix: restart the server from Agent → Manage → Tools, or run "
                    "`contextdesk mcp call` in a terminal, and sign in.",
                )
            )
        try:
            await callback.start()
        except OSError as error:
            raise failed(
                SignInRequiredError(
                    server,
                    f"MCP server '{server}': cannot listen on 127.0.0.1:{callback.port} for the sign-in ({error}). "
                    "Fix: close the program using that port, then restart the server.",
                )
            ) from error
        if waiting_on_user is not None:
            waiting_on_user(True)
        try:
            chosen = await sign_in(SignInRequest(server=server, server_url=server_url, url=url))
        finally:
            if waiting_on_user is not None:
                waiting_on_user(False)
        if not chosen:
            await callback.close()
            raise failed(
                SignInCancelledError(
                    server,
                    f"Sign-in to MCP server '{server}' was cancelled. Fix: restart the server and sign in again.",
                )
            )

    async def wait_for_code() -> AuthorizationCodeResult:
        if waiting_on_user is not None:
            waiting_on_user(True)
        try:
            return await callback.wait()
        except TimeoutError as error:
            raise failed(
                SignInRequiredError(
                    server,
                    f"Sign-in to MCP server '{server}' did not finish within {SIGN_IN_TIMEOUT_SECONDS / 60:g} "
                    "minutes. Fix: restart the server and sign in again.",
                )
            ) from error
        except _AuthorizationRefused as error:
            raise failed(
                SignInRequiredError(
                    server,
                    f"MCP server '{server}' refused the sign-in ({error}). Fix: sign in again, with an account "
                    "that may use this server.",
                )
            ) from error
        finally:
            if waiting_on_user is not None:
                waiting_on_user(False)

    metadata = OAuthClientMetadata(
        client_name=settings.client_name,
        redirect_uris=[AnyUrl(callback.redirect_uri)],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",  # a desktop app cannot keep a client secret (RFC 8252)
        scope=" ".join(settings.scopes) if settings.scopes else None,
    )
    return _Provider(
        server_url=server_url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=show_sign_in,
        callback_handler=wait_for_code,
    )


def sign_out(server: str, server_url: str) -> None:
    """Forget a server's tokens and client registration (blocking: the keyring).

    Raises:
        SignInRequiredError: the keyring refused.
    """
    KeyringTokenStorage(server, server_url).clear()
