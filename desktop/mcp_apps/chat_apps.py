"""The MCP App views of one chat: each tool call with a UI gets its view under the call, read from
its server (``reopen_app_view``: a saved call's too, or why it cannot be), rendered in its sandbox
and bound to a host of the chat (``chat_app_host``: the chat's approvals, records). What a view
asks for the user shows in the transcript; the views are torn down when the chat closes.

A live call's view opens by itself; a call from an earlier session offers a button (a chat full of
old views would start a web engine process for each). At most ``MAX_LIVE_VIEWS`` views run per
chat: opening one more closes the oldest, which offers its button again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QObject, Signal

from agent_core.errors import ContextDeskError
from agent_core.store.records import ToolCallRecord
from desktop.bridge import CoreBridge
from desktop.mcp_apps.component import ComponentInstaller, can_add_component, install_command, missing_note
from desktop.mcp_apps.engine import webengine_available
from desktop.models.conversation import ConversationModel
from desktop.views.app_slot import AppSlot

if TYPE_CHECKING:  # the MCP SDK (under agent_core.mcp) loads after the window shows, not with it
    from agent_core.chat.events import ApprovalRequest
    from agent_core.chat.session import ChatSession
    from agent_core.mcp.apps import AppEvent, AppHost, AppView
    from desktop.mcp_apps.app_view import McpAppView

__all__ = ["MAX_LIVE_VIEWS", "ChatApps"]

logger = logging.getLogger(__name__)

MAX_LIVE_VIEWS = 3  # per chat; one more closes the oldest (a web engine process each)
SHOWN_CHARS = 500  # of a view's message or model context, in the transcript's notice
NO_SERVERS = "Its view cannot be shown: the tool servers are not running (the agent is still opening, or the 'mcp' extra is missing)."


_installer: ComponentInstaller | None = None  # one pip run for the whole app


@dataclass
class _Live:
    record: ToolCallRecord
    host: AppHost
    view: McpAppView
    slot: AppSlot


class ChatApps(QObject):
    """The views of one chat's tool calls. Use it on the GUI thread."""

    message_requested = Signal(str)  # a view's ui/message: for the message box, sent by the user

    def __init__(
        self,
        bridge: CoreBridge,
        session: ChatSession,
        servers: Callable[[], Any],
        conversation: ConversationModel,
        parent: QObject | None = None,
    ) -> None:
        """``servers``: the agent's McpManager now, or None while tools are off."""
        super().__init__(parent)
        self._bridge = bridge
        self._session = session
        self._servers = servers
        self._conversation = conversation
        self._live: dict[str, _Live] = {}
        self._closed = False

    def add_slot(self, record: ToolCallRecord, slot: AppSlot, live: bool) -> None:
        """A tool call with a UI is in the transcript: its view opens at once when the call was
        just made (``live``); a saved one offers to."""
        slot.open_requested.connect(lambda: self.open(record, slot))
        slot.add_component_requested.connect(lambda: self._add_component(slot))
        if live:
            self.open(record, slot)
        else:
            slot.offer("This tool call has an interactive view.")

    def open(self, record: ToolCallRecord, slot: AppSlot) -> None:
        """Read the call's view from its server and show it in ``slot``, or say why it cannot be."""
        if not webengine_available():
            slot.show_note(missing_note(), can_add_component=can_add_component())
            return
        manager = self._servers()
        if manager is None:
            slot.show_note(NO_SERVERS)
            return
        slot.show_note("Opening its view…")
        from agent_core.mcp.apps import reopen_app_view

        def failed(error: BaseException) -> None:
            if not isinstance(error, ContextDeskError):
                logger.error("the view of %s.%s failed to load", record.server, record.tool, exc_info=error)
            if shiboken6.isValid(slot):
                slot.offer(f"{error}")

        self._bridge.submit(
            reopen_app_view(manager, record),
            on_result=lambda app: self._render(record, slot, app, manager),
            on_error=failed,
        )

    def _render(self, record: ToolCallRecord, slot: AppSlot, app: AppView, manager: Any) -> None:
        if self._closed or not shiboken6.isValid(slot):
            return
        from agent_core.apps_in_chat import chat_app_host
        from desktop.mcp_apps.app_view import McpAppView

        if record.id in self._live:
            self._close_one(record.id, "")
        while len(self._live) >= MAX_LIVE_VIEWS:
            self._close_one(next(iter(self._live)), "This view was closed to make room for a newer one.")
        view = McpAppView(app, self._bridge)
        slot.show_view(view)
        bridge = self._bridge
        host = chat_app_host(
            self._session,
            manager,
            app,
            call_id=record.id,
            arguments=record.arguments,
            send=view.send,
            on_event=lambda event: bridge.emit_to_gui(self._on_event, event),
            ask=lambda question: bridge.emit_to_gui(self._ask, question),
            context=view.host_context(),
        )
        bridge.call_soon(lambda: host.deliver_result(record))
        view.attach(host)
        self._live[record.id] = _Live(record, host, view, slot)

    def _add_component(self, slot: AppSlot) -> None:
        """The user asked to add Qt WebEngine: pip runs in the background; a restart shows views."""
        global _installer
        if _installer is None:
            _installer = ComponentInstaller()
        installer = _installer
        slot.show_note("Adding Qt WebEngine (about 120 MB to download)…")

        def done(ok: bool, output: str) -> None:
            installer.finished.disconnect(done)
            if not shiboken6.isValid(slot):
                return
            if ok:
                slot.show_note("Qt WebEngine is installed. Restart ContextDesk to see this view.")
            else:
                slot.show_note(
                    f"Qt WebEngine could not be added: {output[-300:]} Fix: run "
                    f"{' '.join(install_command())} yourself, then restart ContextDesk.",
                    can_add_component=True,
                )

        installer.finished.connect(done)
        installer.start()

    def _ask(self, question: ApprovalRequest) -> None:
        """A view's tool call needs the user's yes: asked in the transcript as the model's are."""
        self._conversation.apply(question)

    def _on_event(self, event: AppEvent) -> None:
        from agent_core.mcp.apps import (
            AppContextUpdated,
            AppLinkRequested,
            AppLogged,
            AppMessageRequested,
            AppSizeChanged,
            AppTeardownRequested,
        )

        live = self._live.get(event.call_id)
        if live is None:
            return
        name = f"{live.record.server}.{live.record.tool}"
        if isinstance(event, AppSizeChanged):
            live.view.resize_to(event.height)
        elif isinstance(event, AppMessageRequested):
            self._conversation.add_notice(
                f"The view of {name} asks to send this message (it is in the message box; send it "
                f"if you want to): {_shown(event.text)}"
            )
            self.message_requested.emit(event.text)
        elif isinstance(event, AppContextUpdated):
            self._conversation.add_notice(
                f"The view of {name} updated its context for the model (kept with this reply): {_shown(event.text)}"
            )
        elif isinstance(event, AppLinkRequested):
            self._conversation.add_notice(f"The view of {name} asks to open a link (not opened): {event.url}")
        elif isinstance(event, AppTeardownRequested):
            self._close_one(event.call_id, "The view closed itself.")
        elif isinstance(event, AppLogged):
            logger.info("MCP App %s (%s): %s", name, event.level, event.text[:300])

    def _close_one(self, call_id: str, note: str) -> None:
        live = self._live.pop(call_id)
        view, slot = live.view, live.slot

        def blank(_: object = None) -> None:
            if shiboken6.isValid(view):
                view.blank()
            if note and shiboken6.isValid(slot):
                slot.offer(note)

        self._bridge.submit(live.host.close(), on_result=blank, on_error=blank)

    def close(self) -> None:
        """The chat closes: every view is torn down (asked first, as the spec says)."""
        self._closed = True
        for call_id in list(self._live):
            self._close_one(call_id, "")


def _shown(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"
