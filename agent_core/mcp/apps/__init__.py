"""MCP Apps (the ``io.modelcontextprotocol/ui`` extension), the Qt-free host side: a tool's UI
resource found, read and checked (``view``), and the JSON-RPC a rendered view speaks (``host``).

A front end renders an :class:`AppView` in a sandbox that enforces its CSP, and passes the view's
messages to an :class:`AppHost`; ``agent_core.apps_in_chat`` binds a host to a chat (the chat's
call path, approvals and records). See docs/mcp.md, "MCP Apps".
"""

from agent_core.mcp.apps.errors import AppCallDenied, AppUnavailableError
from agent_core.mcp.apps.events import (
    AppContextUpdated,
    AppEvent,
    AppLinkRequested,
    AppLogged,
    AppMessageRequested,
    AppSizeChanged,
    AppTeardownRequested,
    HostContext,
)
from agent_core.mcp.apps.host import PROTOCOL_VERSION, AppBackend, AppHost
from agent_core.mcp.apps.limits import AppLimits
from agent_core.mcp.apps.meta import APP_MIME_TYPE, APP_PERMISSIONS, EXTENSION_ID, AppCsp, ResourceUi
from agent_core.mcp.apps.recording import MAX_APP_EXCHANGES, record_app_exchange
from agent_core.mcp.apps.reopen import has_app, reopen_app_view
from agent_core.mcp.apps.view import MAX_APP_HTML_CHARS, AppServer, AppView, load_app_view

__all__ = [
    "APP_MIME_TYPE",
    "APP_PERMISSIONS",
    "EXTENSION_ID",
    "MAX_APP_EXCHANGES",
    "MAX_APP_HTML_CHARS",
    "PROTOCOL_VERSION",
    "AppBackend",
    "AppCallDenied",
    "AppContextUpdated",
    "AppCsp",
    "AppEvent",
    "AppHost",
    "AppLimits",
    "AppLinkRequested",
    "AppLogged",
    "AppMessageRequested",
    "AppServer",
    "AppSizeChanged",
    "AppTeardownRequested",
    "AppUnavailableError",
    "AppView",
    "HostContext",
    "ResourceUi",
    "has_app",
    "load_app_view",
    "record_app_exchange",
    "reopen_app_view",
]
