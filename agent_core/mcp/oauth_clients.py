"""Who ContextDesk is to a server's authorization server in the sign-in flow: a pre-registered
client (``oauth.clientId``, its secret in the keyring), a client ID metadata document
(``oauth.clientMetadataUrl``), or else a client registered dynamically by the SDK.

With a client id set, no registration is attempted. A metadata URL is handed to the SDK, which uses
it as the client id where the authorization server says it supports such documents and registers
dynamically where it does not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import OAuthClientInformationFull
from pydantic import AnyUrl

from agent_core.agent.oauth_settings import OAuthConfig
from agent_core.mcp.oauth_storage import KeyringTokenStorage
from agent_core.mcp.sign_in_errors import SignInRequiredError, grant_not_supported

__all__ = ["SignInProvider", "preregistered_client", "secret_fix"]

_SECRET_METHODS = ("client_secret_basic", "client_secret_post")


def secret_fix(server: str, kind: str) -> str:
    """How a user stores a secret ContextDesk needs for ``server``."""
    return (
        f"Fix: store it in the keyring with `contextdesk mcp set-secret AGENT_DIR {server} {kind}`, "
        "or in the server dialog (Agent → Manage → Tools → Edit)."
    )


def preregistered_client(
    server: str, settings: OAuthConfig, client_secret: str | None, redirect_uri: str
) -> OAuthClientInformationFull | None:
    """The client registered beforehand with the authorization server, or None without ``clientId``.

    Its way of proving itself: ``clientAuth`` if set, else client_secret_basic with a stored secret
    (the method every authorization server must support for a client with a password, RFC 6749
    §2.3.1), else none (a public client).

    Raises:
        SignInRequiredError: the method needs a client secret and none is stored.
    """
    if settings.client_id is None:
        return None
    method = settings.client_auth or ("client_secret_basic" if client_secret else "none")
    if method in _SECRET_METHODS and not client_secret:
        raise SignInRequiredError(
            server,
            f"MCP server '{server}' is set to sign in as client '{settings.client_id}' with {method}, "
            f"and no client secret is stored for it. {secret_fix(server, 'client-secret')}",
        )
    return OAuthClientInformationFull(
        client_id=settings.client_id,
        client_secret=client_secret if method in _SECRET_METHODS else None,
        redirect_uris=[AnyUrl(redirect_uri)],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method=method,
        scope=" ".join(settings.scopes) if settings.scopes else None,
    )


class SignInProvider(OAuthClientProvider):
    """The SDK's authorization-code provider, with three things added:

    - a stored token's expiry is restored on load (the SDK forgets it), so an expired token is
      refreshed at start rather than sent, refused and answered with a new sign-in;
    - a pre-registered client is used as it is: never replaced by a registration;
    - an authorization server that does not offer the authorization code grant stops the flow with
      a message naming the grants it does offer, instead of a browser sign-in that cannot succeed.
    """

    def __init__(
        self,
        server: str,
        storage: KeyringTokenStorage,
        *,
        fixed_client: OAuthClientInformationFull | None,
        report: Callable[[SignInRequiredError], SignInRequiredError],
        **kwargs: Any,
    ) -> None:
        super().__init__(storage=storage, **kwargs)
        self._server = server
        self._keyring = storage
        self._fixed_client = fixed_client
        self._report = report

    async def _initialize(self) -> None:
        await super()._initialize()
        if self._fixed_client is not None:
            self.context.client_info = self._fixed_client
        if self.context.current_tokens is not None:
            self.context.token_expiry_time = await self._keyring.expires_at()

    def _expected_issuer(self) -> str:
        # Also asked just before a dynamic registration: a registration for a grant the server
        # does not offer would only fail later, less clearly.
        self._check_grant()
        return super()._expected_issuer()

    async def _perform_authorization(self) -> httpx2.Request:
        self._check_grant()
        return await super()._perform_authorization()

    def _check_grant(self) -> None:
        """Raises GrantNotSupportedError when the authorization server lists its grants without this one."""
        metadata = self.context.oauth_metadata
        offered = metadata.grant_types_supported if metadata is not None else None
        if offered and "authorization_code" not in offered:
            raise self._report(grant_not_supported(self._server, "authorization-code", offered))
