"""One MCP App's view in the chat: the app's html in its sandbox (desktop/mcp_apps/sandbox.py), its
postMessage JSON-RPC relayed to the core's app host off the GUI thread, its height set within
bounds, its theme the app's.

The protocol itself (initialize, tool input and result, proxied tool calls with approval, messages
and model context, teardown) is the core's ``agent_core.mcp.apps.AppHost``; this widget carries
messages and shows the view.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any, Protocol

from PySide6.QtCore import QFile, QIODevice, QLocale, QObject, QThread, Signal, Slot
from PySide6.QtWebChannel import QWebChannel
from PySide6.QtWebEngineCore import QWebEngineScript
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QSizePolicy, QWidget

from agent_core.mcp.apps import AppView, HostContext
from desktop.bridge import CoreBridge
from desktop.mcp_apps.host_page import RELAY_OBJECT, RELAY_SCRIPT, host_url
from desktop.mcp_apps.sandbox import SandboxPage, sandbox_profile
from desktop.mcp_apps.sandbox_policy import view_policy
from desktop.theme import is_dark

__all__ = [
    "MAX_MESSAGE_CHARS",
    "MAX_VIEW_HEIGHT",
    "MIN_VIEW_HEIGHT",
    "AppMessageHandler",
    "McpAppView",
]

logger = logging.getLogger(__name__)

JsonObject = dict[str, Any]

MIN_VIEW_HEIGHT = 48  # px; a smaller height asked for is raised to this
MAX_VIEW_HEIGHT = 720  # px; a taller app scrolls inside its view
FIRST_HEIGHT = 160  # px; until the app says its size
MAX_MESSAGE_CHARS = 4_000_000  # one message from the app; a longer one is dropped (logged)


class AppMessageHandler(Protocol):
    """The core's host of one view (``agent_core.mcp.apps.AppHost`` is one)."""

    async def handle(self, message: Mapping[str, Any] | str) -> dict[str, Any] | None: ...

    def set_context(self, context: HostContext) -> None: ...


class _Relay(QObject):
    """The object the host page's relay script talks to through the web channel. Its names are the
    script's (camelCase): PySide's ``name=`` aliases crash QWebChannel's introspection."""

    toView = Signal(str)
    received = Signal(str)

    @Slot(str)
    def fromView(self, text: str) -> None:
        self.received.emit(text)


class McpAppView(QWebEngineView):
    """The sandboxed view of ``app``, relaying its messages to a host on the core loop."""

    resized = Signal(int)  # the view's new height, bounded

    def __init__(
        self,
        app: AppView,
        bridge: CoreBridge,
        parent: QWidget | None = None,
        *,
        granted: frozenset[str] = frozenset(),
    ) -> None:
        """``granted``: of the browser features the app asked for, those the user allowed."""
        super().__init__(parent)
        self.app = app
        self._bridge = bridge
        self._host: AppMessageHandler | None = None
        self._waiting: list[str] = []  # what the app sent before its host was attached
        policy = view_policy(app.ui.csp, granted & app.permissions)
        profile, self.request_guard = sandbox_profile(app.html, app.content_security_policy, policy)
        self.sandbox = SandboxPage(profile, self)
        # The profile must outlive its page. Siblings go in the order they became children, so
        # made the view's child after the page, it goes after it (a child of the page would go
        # while the page's internals still use it).
        profile.setParent(self)
        self._relay = _Relay(self)
        self._relay.received.connect(self._from_view)
        channel = QWebChannel(self.sandbox)
        channel.registerObject(RELAY_OBJECT, self._relay)
        world = QWebEngineScript.ScriptWorldId.ApplicationWorld
        self.sandbox.setWebChannel(channel, world)
        self.sandbox.scripts().insert(_relay_script(world))
        self.setPage(self.sandbox)
        self.setContextMenuPolicy(self.contextMenuPolicy().NoContextMenu)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(FIRST_HEIGHT)
        self.setUrl(host_url())

    def attach(self, host: AppMessageHandler) -> None:
        """Give the view its host; what the app sent before waits for it."""
        self._host = host
        waiting, self._waiting = self._waiting, []
        for text in waiting:
            self._dispatch(host, text)

    def send(self, message: Mapping[str, Any]) -> None:
        """Send a JSON-RPC message to the app. Safe from any thread (the core's loop included)."""
        if QThread.currentThread() is not self.thread():
            self._bridge.emit_to_gui(self.send, dict(message))
            return
        self._relay.toView.emit(json.dumps(message))

    def host_context(self) -> HostContext:
        """Where the view is shown: the app's theme and locale, the height it may take."""
        return HostContext(
            theme="dark" if is_dark() else "light",
            locale=QLocale().bcp47Name() or "en-US",
            max_height=MAX_VIEW_HEIGHT,
        )

    def retheme(self) -> None:
        """The app's theme changed: the host tells the view (desktop/theme_switch.Rethemable)."""
        host, context = self._host, self.host_context()
        if host is not None:
            self._bridge.call_soon(lambda: host.set_context(context))

    def resize_to(self, height: int | None) -> None:
        """The height the app asked for, within MIN_VIEW_HEIGHT..MAX_VIEW_HEIGHT."""
        if height is None:
            return
        bounded = max(MIN_VIEW_HEIGHT, min(MAX_VIEW_HEIGHT, height))
        if bounded != self.height():
            self.setFixedHeight(bounded)
            self.resized.emit(bounded)

    def blank(self) -> None:
        """The view was torn down: hidden, and its page discarded, so nothing of the app runs on
        (a page is only discarded hidden; it refuses to navigate to a blank one)."""
        self._host = None
        self._waiting.clear()
        self.hide()
        self.sandbox.setLifecycleState(self.sandbox.LifecycleState.Discarded)

    def _from_view(self, text: str) -> None:
        if len(text) > MAX_MESSAGE_CHARS:
            logger.warning(
                "MCP App view %s: dropped a message of %d characters", self.app.resource_uri, len(text)
            )
            return
        if self._host is None:
            if len(self._waiting) < 64:
                self._waiting.append(text)
            return
        self._dispatch(self._host, text)

    def _dispatch(self, host: AppMessageHandler, text: str) -> None:
        try:
            message = json.loads(text)
        except json.JSONDecodeError:
            message = text  # the host answers what is not JSON-RPC with its error
        self._bridge.submit(host.handle(message), on_result=self._answer)

    def _answer(self, reply: JsonObject | None) -> None:
        if reply is not None:
            self.send(reply)


def _relay_script(world: int) -> QWebEngineScript:
    """qwebchannel.js and the relay, in a world of their own, before the app's frame exists (so the
    app's first message, ui/initialize, is not missed)."""
    library = QFile(":/qtwebchannel/qwebchannel.js")
    library.open(QIODevice.OpenModeFlag.ReadOnly)
    source = bytes(library.readAll().data()).decode()
    library.close()
    script = QWebEngineScript()
    script.setName("contextdesk-relay")
    script.setSourceCode(source + "\n" + RELAY_SCRIPT)
    script.setWorldId(world)
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
    script.setRunsOnSubFrames(False)
    return script
