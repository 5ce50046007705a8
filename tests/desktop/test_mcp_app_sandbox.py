"""The MCP App view's sandbox against a hostile view served by a real MCP server
(tests/fixtures/mcp/app_hostile_server.py): every way out it tries is stopped, and it still runs."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject, Signal
from pytestqt.qtbot import QtBot

from agent_core.agent.schema import StdioServerConfig
from agent_core.mcp.apps import AppLogged
from agent_core.mcp.apps.meta import resource_ui
from desktop.mcp_apps.engine import webengine_available
from desktop.mcp_apps.sandbox_policy import ViewPolicy, iframe_allow, origin_allowed, view_policy
from tests.support.desktop_apps import AppsBridge, HostSignals, app_in_chat, bind_host
from tests.support.paths import FIXTURES

pytestmark = pytest.mark.skipif(
    not webengine_available(), reason="Qt WebEngine is not installed (the `apps` extra)"
)

HOSTILE_SERVER = FIXTURES / "mcp" / "app_hostile_server.py"
WAIT_MS = 60_000


class Probes(QObject):
    """The hostile view's reports (MCP log notifications, raised by its host as AppLogged)."""

    probed = Signal(object)  # the probe results
    survived = Signal()  # the view still runs after trying to navigate away

    def take(self, event: object) -> None:
        if isinstance(event, AppLogged):
            data = json.loads(event.text)
            if "after_navigation" in data:
                self.survived.emit()
            else:
                self.probed.emit(data)


@pytest.fixture
def bridge(qapp: object) -> Iterator[AppsBridge]:
    bridge = AppsBridge()
    yield bridge
    bridge.close()


@pytest.fixture
def canary() -> Iterator[tuple[str, list[str]]]:
    """An http server on the loopback that keeps the path of every request it gets."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(204)
            self.end_headers()

        do_POST = do_GET

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", hits
    server.shutdown()
    server.server_close()


def hostile_view(qtbot: QtBot, bridge: AppsBridge, tmp_path: Path, canary_url: str) -> tuple[Any, Probes]:
    """The hostile view of a chat's call, rendered, its host bound, its reports as signals."""
    from desktop.mcp_apps.app_view import McpAppView

    config = StdioServerConfig(command=sys.executable, args=[str(HOSTILE_SERVER), canary_url])
    found = app_in_chat(bridge, tmp_path, "hostile", config, "hostile_view")
    view = McpAppView(found.app, bridge)
    qtbot.addWidget(view)
    signals, probes = HostSignals(), Probes()
    signals.event.connect(probes.take)
    bind_host(bridge, found, view, signals)
    view.show()
    return view, probes


def test_a_hostile_view_is_stopped_at_every_way_out_and_keeps_running(
    qtbot: QtBot, bridge: AppsBridge, canary: tuple[str, list[str]], tmp_path: Path
) -> None:
    canary_url, hits = canary
    view, probes = hostile_view(qtbot, bridge, tmp_path, canary_url)
    with (
        qtbot.waitSignal(probes.probed, timeout=WAIT_MS) as probed,
        qtbot.waitSignal(probes.survived, timeout=WAIT_MS),
    ):
        pass
    results = probed.args[0]
    # Nothing outside: not the internet, not the machine's loopback, not a file.
    for probe in (
        "fetch_outside",
        "fetch_loopback",
        "image_loopback",
        "image_outside",
        "script_outside",
        "fetch_file",
        "image_file",
    ):
        assert results[probe].startswith("stopped"), (probe, results[probe])
    # The server on the loopback heard nothing, the beacon included (sendBeacon only queues it):
    # stopped in the view, not lost on the way.
    assert hits == []
    assert any(canary_url in refusal for refusal in view.sandbox.refused)
    # The host page is another origin: only postMessage reaches it.
    for probe in ("top_document", "parent_document", "top_location", "top_navigation"):
        assert results[probe] == "stopped: SecurityError", (probe, results[probe])
    # No storage of its own, no web channel, no new window.
    assert results["local_storage"] == "stopped: SecurityError"
    assert results["cookie"] == "stopped: SecurityError"
    assert results["web_channel"] == "stopped: absent"
    assert results["open_window"] == "reached: null"
    # Its navigation away was refused: the page is still the host page, the app still there.
    assert view.url().toString() == "mcp-app://view/host.html"
    assert any("example.com" in refusal for refusal in view.sandbox.refused)


def test_the_request_guard_alone_stops_what_a_wrong_csp_would_let_through(
    qtbot: QtBot,
    bridge: AppsBridge,
    canary: tuple[str, list[str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Defence in depth: with the app's CSP made to allow everything, nothing leaves either."""
    from agent_core.mcp.apps import AppView

    monkeypatch.setattr(
        AppView, "content_security_policy", property(lambda _: "default-src * 'unsafe-inline'")
    )
    canary_url, hits = canary
    view, probes = hostile_view(qtbot, bridge, tmp_path, canary_url)
    with qtbot.waitSignal(probes.survived, timeout=WAIT_MS):
        pass
    assert hits == []
    assert f"{canary_url}/fetch" in view.request_guard.blocked
    assert "https://example.com/" in view.request_guard.blocked


def test_a_view_reaches_only_the_origins_its_resource_declared() -> None:
    ui = resource_ui(
        {
            "ui": {
                "csp": {
                    "connectDomains": ["https://api.example.com", "https://x.org; script-src *"],
                    "resourceDomains": ["https://*.cdn.example"],
                },
                "permissions": {"camera": {}, "clipboardWrite": {}},
            }
        }
    )
    policy = view_policy(ui.csp, granted=frozenset({"clipboardWrite"}))
    assert policy == ViewPolicy(
        connect=("https://api.example.com",),
        resources=("https://*.cdn.example",),
        permissions=("clipboard-write",),
    )
    assert origin_allowed("https://api.example.com/v1/data", policy)
    assert origin_allowed("https://img.cdn.example/a.png", policy)
    assert not origin_allowed("https://cdn.example.evil.org/a.png", policy)
    assert not origin_allowed("https://api.example.com:8443/", policy)
    assert not origin_allowed("http://api.example.com/", policy)
    assert not origin_allowed("file:///etc/passwd", policy)
    assert not origin_allowed("https://x.org/", policy)
    # Asked for but not granted: the frame is not allowed it.
    assert iframe_allow(policy) == "clipboard-write"
    assert iframe_allow(view_policy(ui.csp)) == ""
