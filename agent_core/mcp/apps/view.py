"""A tool's UI (MCP Apps): finding the ``ui://`` resource a tool names and reading it, checked.

The HTML comes from the tool's server and is untrusted: its type must be the MCP Apps HTML type,
its size is bounded (``MAX_APP_HTML_CHARS``) before it is decoded or kept, and its declared CSP
and permissions are parsed by ``meta`` (malformed entries dropped). Rendering it, in a sandbox that
enforces that CSP, is the front end's job.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from agent_core.mcp.apps.errors import AppUnavailableError
from agent_core.mcp.apps.meta import APP_MIME_TYPE, ResourceUi, is_app_mime_type, resource_ui
from agent_core.mcp.errors import McpServerError, McpServerNotReadyError, UnknownServerError
from agent_core.mcp.types import ResourceContent, ResourcePart, ToolInfo

__all__ = ["MAX_APP_HTML_CHARS", "AppServer", "AppView", "app_tool", "load_app_view"]

logger = logging.getLogger(__name__)

# The largest UI document kept (characters of HTML; a base64 blob may be 4/3 of it before decoding).
# The reference servers' single-file views are 0.2 to 0.5 MB.
MAX_APP_HTML_CHARS = 4_000_000


class AppServer(Protocol):
    """What loading a view needs of the MCP client (``McpManager`` is one)."""

    def app_tools(self, server: str) -> tuple[ToolInfo, ...]:
        """Every tool of a ready ``server``, those only its views may call too."""
        ...

    async def read_resource(self, server: str, uri: str) -> ResourceContent: ...


@dataclass(frozen=True)
class AppView:
    """A tool's UI, ready to render: the HTML and what its server declared for it (checked)."""

    server: str
    tool: ToolInfo
    resource_uri: str
    html: str  # at most MAX_APP_HTML_CHARS
    ui: ResourceUi = field(default_factory=ResourceUi)

    @property
    def content_security_policy(self) -> str:
        """The CSP the view must run under (only the declared, well-formed origins)."""
        return self.ui.csp.content_security_policy()

    @property
    def permissions(self) -> frozenset[str]:
        """Browser features the view asked for (``camera``, ``microphone``, ``geolocation``,
        ``clipboardWrite``); a host grants none unless the user agrees."""
        return self.ui.permissions

    @property
    def prefers_border(self) -> bool | None:
        return self.ui.prefers_border

    @property
    def sha256(self) -> str:
        """The HTML's hash, to tell whether a server changed its view."""
        return hashlib.sha256(self.html.encode("utf-8")).hexdigest()


def app_tool(tools: Sequence[ToolInfo], server: str, tool: str) -> ToolInfo:
    """The tool ``tool`` among ``tools`` (a ready ``server``'s), when it has a UI.

    Raises:
        AppUnavailableError: the server does not offer the tool, or the tool has no UI.
    """
    found = next((t for t in tools if t.name == tool), None)
    if found is None:
        raise AppUnavailableError(
            server,
            f"MCP server '{server}' does not offer the tool '{tool}' (any more). "
            "Fix: check the server's tools (it may have been updated), or call the tool again.",
        )
    if found.ui is None or found.ui.resource_uri is None:
        raise AppUnavailableError(
            server, f"The tool '{tool}' of MCP server '{server}' has no UI: its text result is all there is."
        )
    return found


async def load_app_view(client: AppServer, server: str, tool: str) -> AppView:
    """The UI of ``server``'s ``tool``: its ``_meta.ui.resourceUri`` read with ``resources/read``.

    Raises:
        AppUnavailableError: the tool has no UI, the server cannot read it, or what it sent is not
            an MCP App (wrong type, no HTML, too big); the message says which.
        McpServerError: the server is unknown or not ready.
    """
    info = app_tool(client.app_tools(server), server, tool)
    uri = info.ui.resource_uri if info.ui is not None else None
    assert uri is not None  # app_tool checked it
    try:
        content = await client.read_resource(server, uri)
    except (UnknownServerError, McpServerNotReadyError):
        raise
    except McpServerError as error:
        raise AppUnavailableError(server, f"The UI of '{tool}' ({uri}) could not be read: {error}") from error
    part = _html_part(content, server, uri)
    html = _html_text(part, server, uri)
    view = AppView(server, info, uri, html, resource_ui(part.meta))
    # The spec asks hosts to keep an audit trail of what each view may reach.
    logger.info(
        "MCP App %s of %s.%s: %d characters, CSP %s, asks for %s",
        uri,
        server,
        tool,
        len(html),
        view.content_security_policy,
        ", ".join(sorted(view.permissions)) or "no permissions",
    )
    if view.ui.csp.dropped:
        logger.warning("MCP App %s: origins left out of its CSP (not origins): %s", uri, view.ui.csp.dropped)
    return view


def _html_part(content: ResourceContent, server: str, uri: str) -> ResourcePart:
    part = next((p for p in content.parts if p.uri == uri), None) or next(iter(content.parts), None)
    if part is None:
        raise AppUnavailableError(
            server, f"MCP server '{server}' sent nothing for the UI resource {uri}. Fix: check the server."
        )
    if not is_app_mime_type(part.mime_type):
        raise AppUnavailableError(
            server,
            f"MCP server '{server}' sent the UI resource {uri} as '{part.mime_type or 'no type'}', "
            f"not '{APP_MIME_TYPE}': it is not shown. Fix: the server must serve its UI as {APP_MIME_TYPE}.",
        )
    return part


def _html_text(part: ResourcePart, server: str, uri: str) -> str:
    too_big = AppUnavailableError(
        server,
        f"The UI resource {uri} of MCP server '{server}' is over {MAX_APP_HTML_CHARS:,} characters: "
        "it is not shown. Fix: the server must send a smaller view.",
    )
    if part.text is not None:
        if len(part.text) > MAX_APP_HTML_CHARS:
            raise too_big
        return part.text
    if part.blob is None:
        raise AppUnavailableError(
            server, f"The UI resource {uri} of MCP server '{server}' has no HTML in it."
        )
    if len(part.blob) > MAX_APP_HTML_CHARS * 4 // 3 + 4:
        raise too_big
    try:
        html = base64.b64decode(part.blob, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as error:
        raise AppUnavailableError(
            server, f"The UI resource {uri} of MCP server '{server}' is not base64 UTF-8 HTML: {error}"
        ) from error
    if len(html) > MAX_APP_HTML_CHARS:
        raise too_big
    return html
