"""MCP Apps metadata from untrusted servers, read defensively: what a tool's ``_meta`` and a UI
resource's ``_meta`` may say, and what happens to everything else."""

from __future__ import annotations

from typing import Any

import pytest

from agent_core.mcp.apps.meta import is_app_mime_type, resource_ui, tool_ui
from agent_core.mcp.types import ToolUi

# As server-system-monitor 2.0.3 lists its tools (both keys, as the ext-apps server helper writes).
MONITOR_VIEW_TOOL = {
    "ui": {"resourceUri": "ui://system-monitor/mcp-app.html"},
    "ui/resourceUri": "ui://system-monitor/mcp-app.html",
}
MONITOR_POLL_TOOL = {"ui": {"visibility": ["app"]}}


@pytest.mark.parametrize(
    ("meta", "expected"),
    [
        (MONITOR_VIEW_TOOL, ToolUi("ui://system-monitor/mcp-app.html")),
        (MONITOR_POLL_TOOL, ToolUi(None, frozenset({"app"}))),
        ({"ui/resourceUri": "ui://old/view.html"}, ToolUi("ui://old/view.html")),
        ({"ui": {"resourceUri": "https://evil.example.com/view.html"}}, None),  # not a ui:// resource
        ({"ui": {"resourceUri": "ui://x/" + "a" * 3000}}, None),  # too long to be a resource's name
        ({"ui": {"resourceUri": "ui://v.html", "visibility": "app"}}, ToolUi("ui://v.html")),  # not a list
        ({"ui": {"resourceUri": "ui://v.html", "visibility": ["admin"]}}, ToolUi("ui://v.html")),
        (
            {"ui": {"resourceUri": "ui://v.html", "visibility": ["model", "root"]}},
            ToolUi("ui://v.html", frozenset({"model"})),
        ),
        ({"ui": "ui://v.html"}, None),
        (None, None),
        ({"other": 1}, None),
    ],
)
def test_a_tools_ui_metadata_is_read_or_dropped(meta: Any, expected: ToolUi | None) -> None:
    assert tool_ui(meta) == expected


def test_a_resource_without_ui_metadata_gets_the_restrictive_defaults() -> None:
    ui = resource_ui(None)
    assert ui.permissions == frozenset() and ui.prefers_border is None
    assert "connect-src 'none'" in ui.csp.content_security_policy()


def test_a_declared_origin_that_could_widen_the_policy_is_dropped() -> None:
    ui = resource_ui(
        {
            "ui": {
                "csp": {
                    "connectDomains": [
                        "https://api.example.com:8443",
                        "wss://live.example.com",
                        "https://a.example.com 'unsafe-eval'",
                        "'self'",
                        "data:",
                        "https://",
                        42,
                    ],
                    "baseUriDomains": ["https://cdn.example.com/"],
                },
                "prefersBorder": "yes",
                "domain": 7,
            }
        }
    )
    assert ui.csp.connect == ("https://api.example.com:8443", "wss://live.example.com")
    assert ui.csp.base_uri == ("https://cdn.example.com",)
    assert len(ui.csp.dropped) == 5
    assert "unsafe-eval" not in ui.csp.content_security_policy()
    assert ui.prefers_border is None and ui.domain is None


@pytest.mark.parametrize(
    ("mime_type", "is_app"),
    [
        ("text/html;profile=mcp-app", True),
        ("text/html; profile=mcp-app", True),
        ("TEXT/HTML;Profile=MCP-APP", True),
        ("text/html", False),
        ("text/html;profile=other", False),
        ("application/javascript;profile=mcp-app", False),
        (None, False),
    ],
)
def test_only_the_mcp_apps_html_type_is_an_app(mime_type: str | None, is_app: bool) -> None:
    assert is_app_mime_type(mime_type) is is_app
