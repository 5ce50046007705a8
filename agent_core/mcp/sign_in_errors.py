"""Why a remote server's OAuth sign-in could not happen, each said with its fix."""

from __future__ import annotations

from collections.abc import Iterable

from agent_core.mcp.errors import McpServerError

__all__ = ["GrantNotSupportedError", "SignInCancelledError", "SignInRequiredError", "grant_not_supported"]

#: The grants an authorization server may list, by what a user sets in agent.yaml to use them.
_GRANT_SETTINGS = {
    "client_credentials": "client-credentials",
    "urn:ietf:params:oauth:grant-type:jwt-bearer": "cross-app-access",
    "authorization_code": "authorization-code",
}


class SignInRequiredError(McpServerError):
    """The server needs the user to sign in, and nobody can be asked (or the sign-in failed)."""


class SignInCancelledError(SignInRequiredError):
    """The user chose not to sign in."""


class GrantNotSupportedError(SignInRequiredError):
    """The server's authorization server does not offer the grant this server is set to use."""


def grant_not_supported(server: str, configured: str, offered: Iterable[str]) -> GrantNotSupportedError:
    """The error for a server whose authorization server offers only ``offered`` (its
    ``grant_types_supported``) while ``configured`` is what agent.yaml asks for."""
    offered = [grant for grant in offered if grant != "refresh_token"]
    usable = [_GRANT_SETTINGS[grant] for grant in offered if grant in _GRANT_SETTINGS]
    named = ", ".join(offered[:5]) or "none"
    fix = (
        f"set `oauth.grant: {usable[0]}` for this server in agent.yaml, with `oauth.clientId` and its "
        "secret in the keyring (docs/mcp.md#oauth-settings)"
        if usable
        else "ask the server's operator which client it expects; ContextDesk cannot use this server's grants"
    )
    return GrantNotSupportedError(
        server,
        f"MCP server '{server}' does not offer the {configured} grant ContextDesk is set to use; its "
        f"authorization server allows: {named}. Fix: {fix}.",
    )
