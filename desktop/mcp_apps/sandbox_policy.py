"""What an MCP App's view may load: the Content Security Policy and the iframe's ``allow`` list built
from the resource's declared ``_meta.ui`` (``csp``, ``permissions``), and the same rules as a check
for each request the web engine makes (the request guard's defence in depth under the CSP).

Nothing declared means no network at all: the view runs its own inline code and talks to the chat
only through postMessage. A declared origin that is not a plain ``https://host[:port]`` (or
``wss://``; ``*.`` for subdomains) is dropped, so a server cannot smuggle a CSP keyword or a second
directive in through its metadata.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = [
    "HOST_SCHEME",
    "ViewPolicy",
    "content_security_policy",
    "iframe_allow",
    "origin_allowed",
    "policy_from_meta",
]

logger = logging.getLogger(__name__)

# The scheme the host page and the app's document are served under (desktop/mcp_apps/sandbox.py).
HOST_SCHEME = "mcp-app"

# Permission Policy features a resource may ask for (SEP-1865 McpUiResourcePermissions).
_PERMISSIONS = {
    "camera": "camera",
    "microphone": "microphone",
    "geolocation": "geolocation",
    "clipboardWrite": "clipboard-write",
}
_ORIGIN = re.compile(
    r"^(https|wss)://(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:\d{1,5})?$"
)
_MAX_ORIGINS = 32  # per list: a longer list is cut (a view needing more is not a plausible case)


@dataclass(frozen=True)
class ViewPolicy:
    """The origins and browser features one view was granted (empty: none)."""

    connect: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    frames: tuple[str, ...] = ()
    base_uris: tuple[str, ...] = ()
    permissions: tuple[str, ...] = ()


def policy_from_meta(ui_meta: Mapping[str, object] | None) -> ViewPolicy:
    """The policy of a UI resource's ``_meta.ui`` (as the server sent it; unknown keys ignored)."""
    meta = ui_meta or {}
    csp = meta.get("csp")
    csp = csp if isinstance(csp, Mapping) else {}
    permissions = meta.get("permissions")
    granted = (
        tuple(feature for key, feature in _PERMISSIONS.items() if key in permissions)
        if isinstance(permissions, Mapping)
        else ()
    )
    return ViewPolicy(
        connect=_origins(csp.get("connectDomains"), "connectDomains"),
        resources=_origins(csp.get("resourceDomains"), "resourceDomains"),
        frames=_origins(csp.get("frameDomains"), "frameDomains"),
        base_uris=_origins(csp.get("baseUriDomains"), "baseUriDomains"),
        permissions=granted,
    )


def _origins(value: object, field: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    kept: list[str] = []
    for item in value[:_MAX_ORIGINS]:
        origin = item.strip().lower().rstrip("/") if isinstance(item, str) else ""
        if _ORIGIN.match(origin):
            kept.append(origin)
        else:
            logger.warning("MCP App CSP: %s entry %r is not an https/wss origin; ignored", field, item)
    return tuple(kept)


def content_security_policy(policy: ViewPolicy) -> str:
    """The CSP of the app's document: inline code and data: images always; the rest only as declared."""
    resources = " ".join(policy.resources)
    directives = [
        "default-src 'none'",
        f"script-src 'unsafe-inline' 'unsafe-eval' {resources}".rstrip(),
        f"style-src 'unsafe-inline' {resources}".rstrip(),
        f"img-src data: blob: {resources}".rstrip(),
        f"font-src data: {resources}".rstrip(),
        f"media-src data: blob: {resources}".rstrip(),
        f"connect-src {_or_none(policy.connect)}",
        f"frame-src {_or_none(policy.frames)}",
        f"base-uri {_or_none(policy.base_uris)}",
        "worker-src blob:",
        "object-src 'none'",
        "form-action 'none'",
    ]
    return "; ".join(directives)


def _or_none(origins: tuple[str, ...]) -> str:
    return " ".join(origins) or "'none'"


def iframe_allow(policy: ViewPolicy) -> str:
    """The iframe's ``allow`` attribute: only the declared features (empty: none)."""
    return "; ".join(policy.permissions)


def origin_allowed(url: str, policy: ViewPolicy) -> bool:
    """Whether a request to ``url`` leaves the view for an origin the resource declared."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in ("data", "blob", "about"):
        return True
    if scheme not in ("https", "wss") or not parts.hostname:
        return False
    host = parts.hostname.lower()
    port = f":{parts.port}" if parts.port else ""
    for declared in (*policy.connect, *policy.resources, *policy.frames):
        declared_scheme, _, rest = declared.partition("://")
        if declared_scheme != scheme:
            continue
        declared_host, _, declared_port = rest.partition(":")
        if (f":{declared_port}" if declared_port else "") != port:
            continue
        if declared_host.startswith("*."):
            if host.endswith(declared_host[1:]):
                return True
        elif host == declared_host:
            return True
    return False
