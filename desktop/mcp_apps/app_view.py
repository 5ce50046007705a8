"""One MCP App's view in the chat: the app's html in its sandbox (desktop/mcp_apps/sandbox.py), its
postMessage JSON-RPC relayed to the core's app host off the GUI thread, sized by the app's
size-changed notifications within bounds, themed from the app's theme, torn down on close.

The protocol itself (initialize, tool input and result, proxied tool calls with approval, messages
and model context) is the core's (:class:`AppMessageHandler`); this widget only carries messages.
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from PySide6.QtCore import QLocale, QObject, QThread, QTimer, Signal, Slot
from PySide6.QtWebChannel import QWebChannel
from PySide6.QtWebEngineCore import QWebEngineScript
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QSizePolicy, QWidget

from desktop.bridge import CoreBridge
from desktop.mcp_apps.host_page import RELAY_OBJECT, RELAY_SCRIPT, host_url
from desktop.mcp_apps.sandbox import SandboxPage, sandbox_profile
from desktop.mcp_apps.sandbox_policy import policy_from_meta
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

MIN_VIEW_HEIGHT = 48  # px; a smaller size-changed height is raised to this
MAX_VIEW_HEIGHT = 720  # px; a taller app scrolls inside its view
MAX_MESSAGE_CHARS = 4_000_000  # one message from the app; a longer one is dropped (logged)
TEARDOWN_WAIT_MS = 1000  # how long the app gets to answer ui/resource-teardown before it goes


class AppMessageHandler(Protocol):
    """The core's host side of one view: answers each JSON-RPC message the app sends (None for a
    notification or a response) and is given a ``send`` for its own messages to the app."""

    async def handle(self, message: JsonObject) -> JsonObject | None: ...


class _Relay(QObject):
    """The object the host page's relay script talks to through the web channel. Its names are the
    script's (camelCase): PySide's ``name=`` aliases crash QWebChannel's introspection."""

    toView = Signal(str)
    received = Signal(str)

    @Slot(str)
    def fromView(self, text: str) -> None:
        self.received.emit(text)


class McpAppView(QWebEngineView):
    """The sandboxed view of one UI resource, relaying its messages to ``handler`` on the core loop."""

    resized = Signal(int)  # the height the app asked for, bounded
    closed = Signal()  # torn down: the app answered ui/resource-teardown, or its time ran out

    def __init__(
        self,
        html: str,
        ui_meta: Mapping[str, object] | None,
        bridge: CoreBridge,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._bridge = bridge
        self._handler: AppMessageHandler | None = None
        self._outbox: list[JsonObject] = []
        self._ids = itertools.count(1)
        self._teardown_id: str | None = None
        self._closing = False
        self.policy = policy_from_meta(ui_meta)
        profile, self.request_guard = sandbox_profile(html, self.policy)
        self.sandbox = SandboxPage(profile, self)
        # The profile must outlive its page: as the page's child it goes after the page.
        profile.setParent(self.sandbox)
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
        self.setFixedHeight(MIN_VIEW_HEIGHT * 3)
        self.setUrl(host_url())

    # --- the host side --------------------------------------------------------------------------

    def attach(self, handler: AppMessageHandler) -> None:
        """Give the view the core's host; messages the app sent before wait for it."""
        self._handler = handler
        for message in self._outbox:
            self._dispatch(message)
        self._outbox.clear()

    def send(self, message: Mapping[str, Any]) -> None:
        """Send a JSON-RPC message to the app. Safe from any thread (the core's loop included)."""
        if QThread.currentThread() is not self.thread():
            self._bridge.emit_to_gui(self.send, dict(message))
            return
        if not self._closing or message.get("method") == "ui/resource-teardown":
            self._relay.toView.emit(json.dumps(message))

    def host_context(self) -> JsonObject:
        """The host context the app is initialized with (SEP-1865 McpUiHostContext)."""
        return {
            "theme": "dark" if is_dark() else "light",
            "displayMode": "inline",
            "availableDisplayModes": ["inline"],
            "platform": "desktop",
            "locale": QLocale().bcp47Name() or "en",
            "userAgent": "ContextDesk",
            "containerDimensions": {"maxHeight": MAX_VIEW_HEIGHT, "width": self.width()},
        }

    def retheme(self) -> None:
        """The app's theme changed: tell the view (see desktop/theme_switch.Rethemable)."""
        self.send(
            {
                "jsonrpc": "2.0",
                "method": "ui/notifications/host-context-changed",
                "params": {"theme": self.host_context()["theme"]},
            }
        )

    def teardown(self) -> None:
        """Ask the app to finish (ui/resource-teardown), then close, whether or not it answers."""
        if self._closing:
            return
        self._closing = True
        self._teardown_id = f"contextdesk-teardown-{next(self._ids)}"
        self.send({"jsonrpc": "2.0", "id": self._teardown_id, "method": "ui/resource-teardown", "params": {}})
        QTimer.singleShot(TEARDOWN_WAIT_MS, self, self._finish)

    def _finish(self) -> None:
        if self._teardown_id is None:
            return
        self._teardown_id = None
        self.sandbox.triggerAction(self.sandbox.WebAction.Stop)
        self.setHtml("")
        self.closed.emit()

    # --- messages from the app -------------------------------------------------------------------

    def _from_view(self, text: str) -> None:
        if len(text) > MAX_MESSAGE_CHARS:
            logger.warning("MCP App view: dropped a message of %d characters", len(text))
            return
        try:
            message = json.loads(text)
        except json.JSONDecodeError:
            logger.warning("MCP App view: dropped a message that is not JSON")
            return
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return
        if self._teardown_id is not None and message.get("id") == self._teardown_id:
            self._finish()
            return
        if self._closing:
            return
        if message.get("method") == "ui/notifications/size-changed":
            self._resize_to(message.get("params"))
        if self._handler is None:
            self._outbox.append(message)
        else:
            self._dispatch(message)

    def _dispatch(self, message: JsonObject) -> None:
        handler = self._handler
        assert handler is not None
        request_id = message.get("id") if "method" in message else None
        self._bridge.submit(
            handler.handle(message),
            on_result=self._answer,
            on_error=_error_answer(self.send, request_id),
        )

    def _answer(self, reply: JsonObject | None) -> None:
        if reply is not None:
            self.send(reply)

    def _resize_to(self, params: object) -> None:
        height = params.get("height") if isinstance(params, dict) else None
        if isinstance(height, int | float) and not isinstance(height, bool) and height == height:
            bounded = max(MIN_VIEW_HEIGHT, min(MAX_VIEW_HEIGHT, int(height)))
            if bounded != self.height():
                self.setFixedHeight(bounded)
                self.resized.emit(bounded)


def _relay_script(world: int) -> QWebEngineScript:
    """qwebchannel.js and the relay, in a world of their own, before the app's frame exists (so the
    app's first message, ui/initialize, is not missed)."""
    from PySide6.QtCore import QFile, QIODevice

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


def _error_answer(send: Callable[[JsonObject], None], request_id: object) -> Callable[[BaseException], None]:
    """What the app hears when the host failed on its request: a JSON-RPC error, not silence."""

    def answer(error: BaseException) -> None:
        logger.warning("MCP App view: the host failed on a message: %s", error)
        if request_id is not None:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": -32603, "message": f"The host could not answer: {error}"},
                }
            )

    return answer
