"""What an MCP App's view may reach, as the desktop enforces it beneath the CSP: the origins its
resource declared (``_meta.ui.csp``, checked by the core's ``agent_core.mcp.apps.meta``, which also
builds the CSP the app's document is served with) matched against each request the web engine
makes, and the iframe's ``allow`` list of the browser features the user granted.

Nothing declared means no network at all: the view runs its own inline code and talks to the chat
only through postMessage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:  # the MCP SDK loads after the window shows, not with it
    from agent_core.mcp.apps import AppCsp

__all__ = [
    "HOST_SCHEME",
    "ViewPolicy",
    "iframe_allow",
    "origin_allowed",
    "view_policy",
]

# The scheme the host page and the app's document are served under (desktop/mcp_apps/sandbox.py).
HOST_SCHEME = "mcp-app"

# Permission Policy features a resource may ask for (SEP-1865 McpUiResourcePermissions).
_PERMISSIONS = {
    "camera": "camera",
    "microphone": "microphone",
    "geolocation": "geolocation",
    "clipboardWrite": "clipboard-write",
}


@dataclass(frozen=True)
class ViewPolicy:
    """The origins and browser features one view may use (empty: none)."""

    connect: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    frames: tuple[str, ...] = ()
    permissions: tuple[str, ...] = ()


def view_policy(csp: AppCsp, granted: frozenset[str] = frozenset()) -> ViewPolicy:
    """What one view may reach: the origins its resource declared (checked by the core), and of
    the browser features it asked for, those the user ``granted``."""
    return ViewPolicy(
        connect=_lower(csp.connect),
        resources=_lower(csp.resource),
        frames=_lower(csp.frame),
        permissions=tuple(sorted(_PERMISSIONS[name] for name in granted if name in _PERMISSIONS)),
    )


def _lower(origins: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(origin.lower().rstrip("/") for origin in origins)


def iframe_allow(policy: ViewPolicy) -> str:
    """The iframe's ``allow`` attribute: only the declared features (empty: none)."""
    return "; ".join(policy.permissions)


def origin_allowed(url: str, policy: ViewPolicy) -> bool:
    """Whether a request to ``url`` leaves the view for an origin the resource declared."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in ("data", "blob", "about"):
        return True
    if scheme not in ("https", "wss", "http", "ws") or not parts.hostname:
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
