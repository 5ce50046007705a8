"""A tool's UI found and read from real servers: the reference MCP App servers from npm, and the
apps test server's good and bad views (type, size, missing, metadata that asks for too much)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core.mcp import McpManager
from agent_core.mcp.apps import (
    APP_MIME_TYPE,
    EXTENSION_ID,
    MAX_APP_HTML_CHARS,
    AppUnavailableError,
    load_app_view,
)
from tests.support.mcp_servers import apps, npm_server

pytestmark = pytest.mark.anyio

REFERENCE = {
    "basic": ("server-basic-vanillajs", "get-time", "ui://get-time/mcp-app.html"),
    "budget": ("server-budget-allocator", "get-budget-data", "ui://budget-allocator/mcp-app.html"),
    "monitor": ("server-system-monitor", "get-system-info", "ui://system-monitor/mcp-app.html"),
}
DEFAULT_CSP = (
    "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; media-src 'self' data:; connect-src 'none'; "
    "frame-src 'none'; object-src 'none'; base-uri 'self'"
)


async def test_the_reference_servers_views_are_read_as_mcp_apps_under_the_restrictive_default_csp(
    node_modules: Path,
) -> None:
    servers = {
        name: npm_server(node_modules, package, "--stdio") for name, (package, _, _) in REFERENCE.items()
    }
    async with McpManager(servers) as manager:
        for name, (_, tool, uri) in REFERENCE.items():
            view = await load_app_view(manager, name, tool)
            assert (view.server, view.tool.name, view.resource_uri) == (name, tool, uri)
            assert view.html.lstrip().lower().startswith("<!doctype html>")
            assert 10_000 < len(view.html) <= MAX_APP_HTML_CHARS
            assert view.content_security_policy == DEFAULT_CSP  # they declare no origins
            assert view.permissions == frozenset()


async def test_a_tool_only_views_may_call_is_kept_from_the_model_and_offered_to_its_views(
    node_modules: Path,
) -> None:
    servers = {"monitor": npm_server(node_modules, "server-system-monitor", "--stdio")}
    async with McpManager(servers) as manager:
        model_tools = {t.name for t in manager.tools()}
        view_tools = {t.name: t for t in manager.app_tools("monitor")}
    assert model_tools == {"get-system-info"}
    assert set(view_tools) == {"get-system-info", "poll-system-stats"}
    assert view_tools["poll-system-stats"].ui is not None
    assert not view_tools["poll-system-stats"].ui.for_model


async def test_the_client_declares_the_mcp_apps_extension_with_its_html_type() -> None:
    async with McpManager({"apps": apps()}) as manager:
        result = await manager.call_tool("apps", "client_extensions")
    assert json.loads(result.text) == {EXTENSION_ID: {"mimeTypes": [APP_MIME_TYPE]}}


async def test_a_views_declared_csp_keeps_only_well_formed_origins_and_known_permissions() -> None:
    async with McpManager({"apps": apps()}) as manager:
        view = await load_app_view(manager, "apps", "show_counter")
    csp = view.ui.csp
    assert csp.connect == ("https://api.example.com",)
    assert csp.resource == ("https://*.cdn.example.com",)
    assert csp.frame == ()  # declared as a string, not a list: nothing
    assert set(csp.dropped) == {"https://x.example.com; script-src *", "*"}
    policy = view.content_security_policy
    assert "connect-src https://api.example.com;" in policy
    assert "script-src 'self' 'unsafe-inline' https://*.cdn.example.com;" in policy
    assert "x.example.com" not in policy and "frame-src 'none'" in policy
    assert view.permissions == frozenset({"camera"})  # "keylogger" is no permission
    assert view.prefers_border is True


async def test_the_older_flat_resource_uri_key_names_the_same_view() -> None:
    async with McpManager({"apps": apps()}) as manager:
        view = await load_app_view(manager, "apps", "legacy_counter")
    assert view.resource_uri == "ui://apps/counter.html"


@pytest.mark.parametrize(
    ("tool", "says"),
    [
        ("plain_view", "as 'text/html', not 'text/html;profile=mcp-app'"),
        ("huge_view", f"is over {MAX_APP_HTML_CHARS:,} characters"),
        ("missing_view", "could not be read"),
        ("reset", "has no UI"),
        ("no_such_tool", "does not offer the tool 'no_such_tool'"),
    ],
)
async def test_a_view_that_cannot_be_shown_says_why(tool: str, says: str) -> None:
    async with McpManager({"apps": apps()}) as manager:
        with pytest.raises(AppUnavailableError, match=r"Fix|text result|could not be read") as raised:
            await load_app_view(manager, "apps", tool)
    assert says in str(raised.value)
