"""What went wrong in an OAuth sign-in, said for the user: the MCP library's OAuth errors translated.

The SDK's OAuth client raises ``OAuthRegistrationError``, ``OAuthTokenError`` and ``OAuthFlowError``
with the authorization server's whole answer in the message (often the site's HTML error page).
:func:`explain_oauth_failure` names the step that failed, keeps only the server's short reason (an
OAuth ``error``/``error_description``, or an HTML page's title), bounded, and ends with a Fix line
that names the setting to change: ``oauth.clientId`` in agent.yaml with its secret in the keyring
(``contextdesk mcp set-secret``), ``oauth.clientMetadataUrl``, or the server dialog.
"""

from __future__ import annotations

import html
import json
import re

from mcp.client.auth.exceptions import OAuthFlowError, OAuthRegistrationError, OAuthTokenError

__all__ = ["MAX_SERVER_REASON_CHARS", "explain_oauth_failure", "server_reason"]

MAX_SERVER_REASON_CHARS = 200  # of the server's own words quoted in a message
_MAX_SCANNED_CHARS = 20_000  # of an error body looked at to find those words

_PRE_REGISTERED = (
    "set a pre-registered client id for it (agent.yaml `oauth.clientId`, its secret if it has one in "
    "the keyring: `contextdesk mcp set-secret AGENT_DIR {server} client-secret`; or the server dialog)"
)
_SIGN_IN_AGAIN = "sign in again (`contextdesk mcp login AGENT_DIR {server}`, or restart the server)"

_REGISTRATION_FAILED = re.compile(r"^Registration failed: (\d{3})\s*(.*)$", re.DOTALL)
_TOKEN_FAILED = re.compile(r"^Token exchange failed \((\d{3})\)[^:]*:\s*(.*)$", re.DOTALL)
_METADATA_FAILED = re.compile(r"[Mm]etadata request failed: (?:HTTP )?(\d{3})")
_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_HEADING = re.compile(r"<h1[^>]*>(.*?)</h1>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")


def server_reason(body: str) -> str:
    """The server's reason in a few words: ``error: error_description`` of an OAuth error, the title
    of an HTML page, else the text itself, on one line and at most 200 characters."""
    body = body[:_MAX_SCANNED_CHARS].strip()
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), str):
        described = parsed.get("error_description")
        text = parsed["error"] + (f": {described}" if isinstance(described, str) and described else "")
    elif body.lstrip().startswith("<"):
        found = _TITLE.search(body) or _HEADING.search(body)
        text = _TAG.sub(" ", found.group(1) if found else body)
        text = html.unescape(text) if text.strip() else "an HTML page"
    else:
        text = body
    text = " ".join(text.split())
    if len(text) > MAX_SERVER_REASON_CHARS:
        text = text[: MAX_SERVER_REASON_CHARS - 1] + "…"
    return text or "no reason given"


def explain_oauth_failure(server: str, error: OAuthFlowError) -> str:
    """The message for an OAuth failure of MCP server ``server``: what went wrong, then a Fix line."""
    where = f"MCP server '{server}'"
    message = str(error)
    again = _SIGN_IN_AGAIN.format(server=server)
    pre_registered = _PRE_REGISTERED.format(server=server)
    if isinstance(error, OAuthRegistrationError):
        failed = _REGISTRATION_FAILED.match(message)
        if failed is not None:
            status, reason = int(failed.group(1)), server_reason(failed.group(2))
            if status in (404, 405, 501):
                return (
                    f"{where}: its authorization server does not allow dynamic client registration "
                    f"(HTTP {status}: {reason}), so ContextDesk cannot register itself. "
                    f"Fix: {pre_registered}, or a client metadata document's URL (`oauth.clientMetadataUrl`) "
                    "where the server takes those."
                )
            return (
                f"{where}: its authorization server refused to register ContextDesk as a client "
                f"(HTTP {status}: {reason}). Fix: {pre_registered}, or ask the server's operator."
            )
        if "token_endpoint_auth_method" in message or "client_secret" in message:
            return (
                f"{where}: its authorization server registered ContextDesk in a way it cannot sign in with "
                f"({server_reason(message)}). Fix: {pre_registered}."
            )
        return (
            f"{where}: its authorization server's answer to the client registration is not one "
            f"({server_reason(message)}). Fix: {pre_registered}, or ask the server's operator."
        )
    if isinstance(error, OAuthTokenError):
        failed = _TOKEN_FAILED.match(message)
        if failed is not None:
            status, reason = int(failed.group(1)), server_reason(failed.group(2))
            if reason.startswith(("invalid_client", "unauthorized_client")):
                return (
                    f"{where}: its authorization server does not accept ContextDesk's client "
                    f"(HTTP {status}: {reason}). Fix: check `oauth.clientId` in agent.yaml and its secret "
                    f"(`contextdesk mcp set-secret AGENT_DIR {server} client-secret`), or the server dialog; "
                    f"if you set none, {again}."
                )
            return (
                f"{where}: its authorization server refused to issue a token (HTTP {status}: {reason}). "
                f"Fix: {again}."
            )
        return (
            f"{where}: its authorization server sent a token answer ContextDesk cannot use "
            f"({server_reason(message)}). Fix: {again}; if it happens again, ask the server's operator."
        )
    failed = _METADATA_FAILED.search(message)
    if failed is not None:
        return (
            f"{where}: its sign-in information (OAuth metadata) could not be read (HTTP {failed.group(1)}). "
            "Fix: try again later; if it keeps failing, check `url` and ask the server's operator."
        )
    if "does not match" in message or "issuer mismatch" in message or "iss mismatch" in message:
        return (
            f"{where}: its sign-in information names another server than the one it came from "
            f"({server_reason(message)}), so ContextDesk did not sign in there. Fix: check `url` in "
            "agent.yaml; if it is right, ask the server's operator to fix the server's OAuth metadata."
        )
    if "State parameter mismatch" in message or "iss parameter" in message:
        return (
            f"{where}: the sign-in came back from the browser with answers that do not belong to it "
            f"({server_reason(message)}); ContextDesk ignored it. Fix: {again}, in one browser tab."
        )
    return f"{where}: the OAuth sign-in failed ({server_reason(message)}). Fix: {again}."
