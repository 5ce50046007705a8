"""The MCP App view's sandbox against a hostile view served by a real MCP server
(tests/fixtures/mcp/app_hostile_server.py): every way out it tries is stopped, and it still runs."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from PySide6.QtCore import QObject, Signal
from pytestqt.qtbot import QtBot

from agent_core.agent.schema import StdioServerConfig
from agent_core.mcp.manager import McpManager
from desktop.bridge import CoreBridge
from desktop.mcp_apps.engine import webengine_available
from desktop.mcp_apps.sandbox_policy import ViewPolicy, content_security_policy, policy_from_meta
from tests.support.paths import FIXTURES

pytestmark = pytest.mark.skipif(
    not webengine_available(), reason="Qt WebEngine is not installed (the `apps` extra)"
)

HOSTILE_SERVER = FIXTURES / "mcp" / "app_hostile_server.py"
VIEW_URI = "ui://hostile/view.html"
WAIT_MS = 60_000


class RecordingHost(QObject):
    """Stands in for the core's app host where only the sandbox is under test: it keeps what the
    view reports (MCP log notifications) and answers nothing."""

    probed = Signal(object)  # the view's probe results
    survived = Signal()  # the view still runs after trying to navigate away

    async def handle(self, message: dict[str, Any]) -> dict[str, Any] | None:
        data = message.get("params", {}).get("data")
        if isinstance(data, dict) and "after_navigation" in data:
            self.survived.emit()
        elif isinstance(data, dict):
            self.probed.emit(data)
        return None


@pytest.fixture
def bridge(qapp: object) -> Iterator[CoreBridge]:
    bridge = CoreBridge()
    yield bridge
    bridge.shutdown()


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


def read_hostile_view(bridge: CoreBridge, canary_url: str) -> str:
    """The view's html, read from the real server through the app's MCP client."""
    config = StdioServerConfig(command=sys.executable, args=[str(HOSTILE_SERVER), canary_url])

    async def read() -> str:
        async with McpManager({"hostile": config}) as manager:
            await manager.start()
            content = await manager.read_resource("hostile", VIEW_URI)
            text = content.parts[0].text
            assert text is not None
            return text

    return bridge.run_sync(read(), timeout=60)


def test_a_hostile_view_is_stopped_at_every_way_out_and_keeps_running(
    qtbot: QtBot, bridge: CoreBridge, canary: tuple[str, list[str]]
) -> None:
    from desktop.mcp_apps.app_view import McpAppView

    canary_url, hits = canary
    view = McpAppView(read_hostile_view(bridge, canary_url), None, bridge)
    qtbot.addWidget(view)
    host = RecordingHost()
    view.attach(host)
    view.show()
    with (
        qtbot.waitSignal(host.probed, timeout=WAIT_MS) as probed,
        qtbot.waitSignal(host.survived, timeout=WAIT_MS),
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


def test_a_view_is_sent_host_messages_and_its_requests_reach_the_host(
    qtbot: QtBot, bridge: CoreBridge
) -> None:
    from desktop.mcp_apps.app_view import MAX_VIEW_HEIGHT, McpAppView

    html = """<!doctype html><html><body><script>
      window.addEventListener("message", (event) => {
        if (event.data.method === "ui/notifications/tool-result")
          window.parent.postMessage({jsonrpc: "2.0", id: 2, method: "echo", params: event.data.params}, "*");
      });
      window.parent.postMessage({jsonrpc: "2.0", method: "ui/notifications/size-changed",
                                 params: {width: 300, height: 100000}}, "*");
      window.parent.postMessage({jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {}}, "*");
    </script></body></html>"""

    class EchoHost(QObject):
        initialized = Signal()
        echoed = Signal(object)

        async def handle(self, message: dict[str, Any]) -> dict[str, Any] | None:
            if message.get("method") == "ui/initialize":
                self.initialized.emit()
                return {"jsonrpc": "2.0", "id": message["id"], "result": {}}
            if message.get("method") == "echo":
                self.echoed.emit(message["params"])
            return None

    view = McpAppView(html, None, bridge)
    qtbot.addWidget(view)
    host = EchoHost()
    with (
        qtbot.waitSignal(view.resized, timeout=WAIT_MS) as resized,
        qtbot.waitSignal(host.initialized, timeout=WAIT_MS),
    ):
        view.attach(host)  # the messages the view sent before its host was there wait for it
        view.show()
    assert resized.args == [MAX_VIEW_HEIGHT]  # a view asking for 100000 px gets the bound
    with qtbot.waitSignal(host.echoed, timeout=WAIT_MS) as echoed:
        view.send({"jsonrpc": "2.0", "method": "ui/notifications/tool-result", "params": {"content": []}})
    assert echoed.args == [{"content": []}]
    with qtbot.waitSignal(view.closed, timeout=WAIT_MS):
        view.teardown()  # the view does not answer: it is closed when its time runs out


def test_the_policy_admits_only_declared_well_formed_origins() -> None:
    policy = policy_from_meta(
        {
            "csp": {
                "connectDomains": [
                    "https://api.example.com",
                    "https://x.org; script-src *",
                    "http://plain.example",
                ],
                "resourceDomains": ["https://*.cdn.example"],
            },
            "permissions": {"camera": {}, "bogus": {}},
        }
    )
    assert policy == ViewPolicy(
        connect=("https://api.example.com",), resources=("https://*.cdn.example",), permissions=("camera",)
    )
    csp = content_security_policy(policy)
    assert "connect-src https://api.example.com;" in csp
    assert "x.org" not in csp and "plain.example" not in csp
    assert "connect-src 'none'" in content_security_policy(policy_from_meta(None))


def test_the_request_guard_alone_stops_what_a_wrong_csp_would_let_through(
    qtbot: QtBot, bridge: CoreBridge, canary: tuple[str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defence in depth: with the app's CSP made to allow everything, nothing leaves either."""
    import desktop.mcp_apps.sandbox as sandbox
    from desktop.mcp_apps.app_view import McpAppView

    monkeypatch.setattr(sandbox, "content_security_policy", lambda _policy: "default-src * 'unsafe-inline'")
    canary_url, hits = canary
    view = McpAppView(read_hostile_view(bridge, canary_url), None, bridge)
    qtbot.addWidget(view)
    host = RecordingHost()
    view.attach(host)
    view.show()
    with qtbot.waitSignal(host.survived, timeout=WAIT_MS):
        pass
    assert hits == []
    assert f"{canary_url}/fetch" in view.request_guard.blocked
    assert "https://example.com/" in view.request_guard.blocked
