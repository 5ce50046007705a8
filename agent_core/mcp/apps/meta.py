"""MCP Apps metadata, read defensively: a server's ``_meta`` is untrusted input.

A tool's ``_meta.ui`` (or the older flat ``_meta["ui/resourceUri"]``) names its UI resource and who
may call it; a UI resource's ``_meta.ui`` declares the origins its view may reach (``csp``), the
browser features it asks for (``permissions``) and whether it wants a border. Anything malformed
is dropped, never guessed at: a bad visibility means the default, a bad origin is left out (so the
view may reach less, never more), an unknown permission is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agent_core.mcp.types import ToolUi

__all__ = [
    "APP_MIME_TYPE",
    "APP_PERMISSIONS",
    "EXTENSION_ID",
    "MAX_CSP_ORIGINS",
    "AppCsp",
    "ResourceUi",
    "is_app_mime_type",
    "resource_ui",
    "tool_ui",
]

EXTENSION_ID = "io.modelcontextprotocol/ui"  # the extension's id in the client capabilities
APP_MIME_TYPE = "text/html;profile=mcp-app"
# The browser features a view may ask for (Permission Policy names in the spec's camelCase).
APP_PERMISSIONS = frozenset({"camera", "microphone", "geolocation", "clipboardWrite"})
MAX_CSP_ORIGINS = 32  # per directive: more are left out
_LEGACY_RESOURCE_KEY = "ui/resourceUri"
_MAX_URI_CHARS = 2048

# An origin as CSP takes it: scheme, host (a leading "*." for subdomains), optional port. Nothing
# else: no paths with quotes, spaces or semicolons that could end the directive, no bare "*", no
# keywords such as 'unsafe-eval'.
_ORIGIN = re.compile(
    r"^(?:https|wss|http|ws)://(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9-]{1,63})*"
    r"(?::[0-9]{1,5})?/?$"
)


@dataclass(frozen=True)
class AppCsp:
    """The origins a UI resource declares, each directive checked (see ``content_security_policy``)."""

    connect: tuple[str, ...] = ()  # fetch, XHR, WebSocket (connect-src)
    resource: tuple[str, ...] = ()  # scripts, styles, images, fonts, media
    frame: tuple[str, ...] = ()  # nested frames (frame-src)
    base_uri: tuple[str, ...] = ()  # base-uri
    dropped: tuple[str, ...] = ()  # declared entries that are not origins, left out

    def content_security_policy(self) -> str:
        """The Content-Security-Policy the view runs under: the spec's, with only these origins.

        With nothing declared it is the spec's restrictive default (no network, no frames)."""

        def sources(origins: tuple[str, ...], *base: str) -> str:
            return " ".join((*base, *origins))

        own, inline, data, none = "'self'", "'unsafe-inline'", "data:", "'none'"
        directives = [
            "default-src 'none'",
            "script-src " + sources(self.resource, own, inline),
            "style-src " + sources(self.resource, own, inline),
            "img-src " + sources(self.resource, own, data),
            "font-src " + sources(self.resource, own),
            "media-src " + sources(self.resource, own, data),
            "connect-src " + (sources(self.connect) or none),
            "frame-src " + (sources(self.frame) or none),
            "object-src 'none'",
            "base-uri " + (sources(self.base_uri) or own),
        ]
        return "; ".join(directives)


@dataclass(frozen=True)
class ResourceUi:
    """What a UI resource's ``_meta.ui`` declares, checked."""

    csp: AppCsp = field(default_factory=AppCsp)
    permissions: frozenset[str] = frozenset()  # among APP_PERMISSIONS
    prefers_border: bool | None = None  # None: the host decides
    domain: str | None = None  # a dedicated origin the server asks for (not honoured: noted only)


def tool_ui(meta: Mapping[str, Any] | None) -> ToolUi | None:
    """A tool's MCP Apps metadata, or None when it has none (or none that makes sense)."""
    if not isinstance(meta, Mapping):
        return None
    ui = meta.get("ui")
    ui = ui if isinstance(ui, Mapping) else {}
    uri = ui.get("resourceUri")
    if not _is_ui_uri(uri):
        uri = meta.get(_LEGACY_RESOURCE_KEY)
    resource_uri = uri if _is_ui_uri(uri) else None
    visibility = _visibility(ui.get("visibility"))
    if resource_uri is None and visibility is None:
        return None
    return ToolUi(resource_uri, visibility if visibility is not None else ToolUi().visibility)


def resource_ui(meta: Mapping[str, Any] | None) -> ResourceUi:
    """A UI resource's declared CSP, permissions and border preference; defaults when absent."""
    ui = meta.get("ui") if isinstance(meta, Mapping) else None
    if not isinstance(ui, Mapping):
        return ResourceUi()
    csp = ui.get("csp")
    csp = csp if isinstance(csp, Mapping) else {}
    dropped: list[str] = []

    def origins(key: str) -> tuple[str, ...]:
        declared = csp.get(key)
        if not isinstance(declared, list):
            return ()
        kept: list[str] = []
        for entry in declared:
            if isinstance(entry, str) and _ORIGIN.match(entry) and len(kept) < MAX_CSP_ORIGINS:
                kept.append(entry.rstrip("/"))
            else:
                dropped.append(str(entry)[:200])
        return tuple(dict.fromkeys(kept))

    checked = AppCsp(
        connect=origins("connectDomains"),
        resource=origins("resourceDomains"),
        frame=origins("frameDomains"),
        base_uri=origins("baseUriDomains"),
    )
    checked = AppCsp(checked.connect, checked.resource, checked.frame, checked.base_uri, tuple(dropped))
    permissions = ui.get("permissions")
    asked = (
        frozenset(
            name for name, value in permissions.items() if name in APP_PERMISSIONS and value is not None
        )
        if isinstance(permissions, Mapping)
        else frozenset()
    )
    border = ui.get("prefersBorder")
    domain = ui.get("domain")
    return ResourceUi(
        csp=checked,
        permissions=asked,
        prefers_border=border if isinstance(border, bool) else None,
        domain=domain[:253] if isinstance(domain, str) and domain else None,
    )


def is_app_mime_type(mime_type: str | None) -> bool:
    """Whether ``mime_type`` is the MCP Apps HTML type (spacing and case of the parameter aside)."""
    if mime_type is None:
        return False
    kind, _, parameters = mime_type.partition(";")
    params = {p.strip().lower() for p in parameters.split(";") if p.strip()}
    return kind.strip().lower() == "text/html" and "profile=mcp-app" in {p.replace(" ", "") for p in params}


def _is_ui_uri(value: object) -> bool:
    return isinstance(value, str) and value.startswith("ui://") and len(value) <= _MAX_URI_CHARS


def _visibility(value: object) -> frozenset[str] | None:
    """The declared visibility, or None when it is missing or malformed (the default applies)."""
    if not isinstance(value, list) or not value:
        return None
    known = frozenset(v for v in value if v in ("model", "app"))
    return known or None
