"""OAuth sign-in for remote MCP servers: the SDK's flow, tokens in the keyring, the browser by the user's choice.

The SDK's ``OAuthClientProvider`` (an ``httpx.Auth``) does discovery, dynamic client registration,
authorization code with PKCE and refresh. This module gives it what it leaves to the client:

- who the client is: a pre-registered client, a client ID metadata document, or a dynamic
  registration (agent_core.mcp.oauth_clients); grants without a browser: agent_core.mcp.oauth_grants;
- where tokens and secrets live: the operating system's keyring (agent_core.mcp.oauth_storage), never a file;
- how the user signs in: a :class:`SignInHandler` from the front end is shown the sign-in URL and
  decides whether to open it (nothing is opened by the core);
- how the code comes back: a one-shot listener on 127.0.0.1 (agent_core.mcp.oauth_loopback).

Without a handler (a workflow, a headless run) a server whose token expired without refresh, or
was revoked, fails with :class:`SignInRequiredError`, whose message says to sign in again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import httpx2
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata
from pydantic import AnyUrl

from agent_core.agent.schema import OAuthConfig, StreamableHttpServerConfig
from agent_core.agent.secrets import resolve_secret
from agent_core.agent.variables import VariableContext, expand_variables
from agent_core.mcp.oauth_clients import SignInProvider, preregistered_client
from agent_core.mcp.oauth_grants import grant_auth
from agent_core.mcp.oauth_loopback import (
    SIGN_IN_TIMEOUT_SECONDS,
    AuthorizationRefusedError,
    LoopbackCallback,
    callback_port,
)
from agent_core.mcp.oauth_storage import KEYRING_SERVICE, KeyringTokenStorage, OAuthSecretKind
from agent_core.mcp.sign_in_errors import SignInCancelledError, SignInRequiredError

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
    "store_secret",
]


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


def oauth_provider(
    server: str,
    server_url: str,
    settings: OAuthConfig,
    sign_in: SignInHandler | None,
    *,
    waiting_on_user: Callable[[bool], None] | None = None,
    on_sign_in_error: Callable[[SignInRequiredError], None] | None = None,
) -> httpx2.Auth:
    """The SDK's OAuth ``httpx.Auth`` for one server, with keyring storage and the user's sign-in
    (or, for the client-credentials and cross-app-access grants, none: agent_core.mcp.oauth_grants).

    Reads the keyring (blocking): call it off the event loop. ``waiting_on_user(True/False)`` brackets
    the time the user has the sign-in page, so a start deadline can pause meanwhile;
    ``on_sign_in_error`` hears why a sign-in failed (the SDK's transport ends the connection without it).

    Raises:
        SignInRequiredError: no keyring is available, or a secret the settings need is not stored.
    """
    storage = KeyringTokenStorage(server, server_url)

    def failed(error: SignInRequiredError) -> SignInRequiredError:
        if on_sign_in_error is not None:
            on_sign_in_error(error)
        return error

    if settings.grant != "authorization-code":
        return grant_auth(server, server_url, settings, storage, failed)
    # A registered client is bound to its redirect URI: reuse its port so the registration stays valid.
    stored = None if settings.client_id is not None else storage.client_info_now()
    callback = LoopbackCallback(callback_port(settings.redirect_port, stored))
    fixed_client = preregistered_client(
        server,
        settings,
        storage.secret("client-secret") if settings.client_id else None,
        callback.redirect_uri,
    )

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
        except AuthorizationRefusedError as error:
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
    try:
        return SignInProvider(
            server,
            storage,
            fixed_client=fixed_client,
            report=failed,
            server_url=server_url,
            client_metadata=metadata,
            redirect_handler=show_sign_in,
            callback_handler=wait_for_code,
            client_metadata_url=settings.client_metadata_url,
        )
    except ValueError as error:  # the SDK's own check of the metadata URL
        raise SignInRequiredError(
            server,
            f"MCP server '{server}': oauth.clientMetadataUrl is not usable as a client id ({error}). "
            "Fix: give an https URL of the client's metadata document, with a path.",
        ) from error


def sign_out(server: str, server_url: str) -> None:
    """Forget a server's tokens and client registration (blocking: the keyring).

    Raises:
        SignInRequiredError: the keyring refused.
    """
    KeyringTokenStorage(server, server_url).clear()


def store_secret(
    server: str,
    config: StreamableHttpServerConfig,
    kind: OAuthSecretKind,
    value: str,
    variables: VariableContext | None = None,
) -> None:
    """Keep ``value`` in the keyring as ``server``'s ``kind`` (an empty value forgets it), under the
    server's URL as it connects (variables expanded). Blocking: the keyring.

    Raises:
        SignInRequiredError: the server does not use OAuth, or no keyring is available.
        MissingSecretError: the URL names a variable that has no value.
    """
    if config.oauth_settings is None:
        raise SignInRequiredError(
            server,
            f"MCP server '{server}' does not use OAuth, so it has no {kind}. Fix: add `oauth: true` "
            "(or an oauth block) to the server in agent.yaml first.",
        )
    what = f"MCP server '{server}': url"
    environ = variables.environ if variables is not None else None
    url = expand_variables(
        resolve_secret(config.url, what=what, environ=environ), where=what, context=variables
    )
    KeyringTokenStorage(server, url).set_secret(kind, value)
