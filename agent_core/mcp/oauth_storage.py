"""What an OAuth sign-in keeps, in the operating system's keyring only: tokens, the client
registration, and the secrets a user stores for a server (client secret, private key, ID token).

Entries are keyed by the server's URL, so every agent that uses the same server shares them. A
keyring call may block (D-Bus, a locked keyring): the async methods run it in a thread. Where no
keyring exists, everything fails closed: nothing is ever written to a file instead.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Literal, TypeVar, get_args

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import BaseModel, ValidationError

from agent_core.mcp.sign_in_errors import SignInRequiredError

__all__ = ["KEYRING_SERVICE", "SECRET_KINDS", "KeyringTokenStorage", "OAuthSecretKind"]

logger = logging.getLogger(__name__)

KEYRING_SERVICE = "contextdesk-mcp-oauth"
MAX_STORED_CHARS = 100_000  # a record or secret bigger than this is not one to keep
#: The secrets a user stores for a server (``contextdesk mcp set-secret``, the server dialog).
OAuthSecretKind = Literal["client-secret", "private-key", "idp-id-token"]
SECRET_KINDS: tuple[OAuthSecretKind, ...] = get_args(OAuthSecretKind)


class _StoredTokens(BaseModel):
    """The keyring entry: the SDK's token and when its access token expires."""

    token: OAuthToken
    expires_at: float | None = None


_Record = TypeVar("_Record", _StoredTokens, OAuthClientInformationFull)


class KeyringTokenStorage:
    """The SDK's ``TokenStorage`` over the OS keyring, plus the user's secrets for the server.

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

    def secret(self, kind: OAuthSecretKind) -> str | None:
        """A secret the user stored for this server, or None (blocking)."""
        return self._read(kind) or None

    def set_secret(self, kind: OAuthSecretKind, value: str) -> None:
        """Keep ``value`` as this server's ``kind``; an empty value forgets it (blocking)."""
        if value:
            self._write(kind, value)
        else:
            self._delete(kind)

    def clear(self) -> None:
        """Forget the tokens and the client registration (the user's secrets stay)."""
        for kind in ("tokens", "client"):
            self._delete(kind)

    def _user(self, kind: str) -> str:
        return f"{kind}:{self._url}"

    def _delete(self, kind: str) -> None:
        import keyring
        from keyring.errors import KeyringError, PasswordDeleteError

        self._require_keyring()
        try:
            keyring.delete_password(KEYRING_SERVICE, self._user(kind))
        except PasswordDeleteError:
            pass
        except KeyringError as error:
            raise self._keyring_error(error) from error

    def _read(self, kind: str) -> str | None:
        import keyring
        from keyring.errors import KeyringError

        self._require_keyring()
        try:
            value = keyring.get_password(KEYRING_SERVICE, self._user(kind))
        except KeyringError as error:
            raise self._keyring_error(error) from error
        return value if value is None or len(value) <= MAX_STORED_CHARS else None

    def _write(self, kind: str, value: str) -> None:
        import keyring
        from keyring.errors import KeyringError

        self._require_keyring()
        if len(value) > MAX_STORED_CHARS:
            raise SignInRequiredError(
                self._server,
                f"MCP server '{self._server}': a {kind} record of {len(value):,} characters is too big to "
                f"keep (at most {MAX_STORED_CHARS:,}). Fix: check what was given, or ask the server's operator.",
            )
        try:
            keyring.set_password(KEYRING_SERVICE, self._user(kind), value)
        except KeyringError as error:
            raise self._keyring_error(error) from error

    def _require_keyring(self) -> None:
        from agent_core.agent.keyring_secrets import keyring_available

        if not keyring_available():
            # Fail closed: a token or secret is never kept in a file instead.
            raise SignInRequiredError(
                self._server,
                f"MCP server '{self._server}' uses OAuth, and its tokens and secrets are kept only in the "
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
