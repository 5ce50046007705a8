"""One open chat: its ChatSession on the core thread, its transcript model on the GUI thread."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from agent_core.agent.loader import Agent
from agent_core.chat.events import ApprovalDecision, ChatEvent, UserMessageSaved
from agent_core.context.items import ItemRef, RequestContext, SessionItem
from agent_core.errors import ContextDeskError
from agent_core.store.chats import StoredMessage
from desktop.bridge import CoreBridge
from desktop.models.conversation import ConversationModel

if TYPE_CHECKING:
    from agent_core.chat.session import ChatSession

__all__ = ["ChatController"]

logger = logging.getLogger(__name__)


class ChatController(QObject):
    busy_changed = Signal(bool)
    send_failed = Signal(str, str)  # the text that was not sent, why
    error = Signal(str)  # something to show near the chat (not a failed reply: that is inline)
    title_changed = Signal(str)
    activity = Signal()  # the chat was used: the chat list moves it to the top
    items_changed = Signal()
    settings_changed = Signal()
    history_loaded = Signal()

    def __init__(self, bridge: CoreBridge, session: ChatSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.session = session
        self.conversation = ConversationModel(self)
        self._busy = False
        self._saved_user_message = False

    @property
    def id(self) -> str:
        return self.session.id

    @property
    def title(self) -> str:
        return self.session.title

    @property
    def busy(self) -> bool:
        return self._busy

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)

    # --- history ------------------------------------------------------------------------------

    def load_history(self) -> None:
        def loaded(messages: list[StoredMessage]) -> None:
            self.conversation.load(messages)
            self.history_loaded.emit()

        self.bridge.call(self.session.history, on_result=loaded, on_error=self._report)

    # --- sending ------------------------------------------------------------------------------

    def send(self, text: str) -> bool:
        """Start answering ``text``; False (and nothing sent) while a reply is still running."""
        if self._busy or not text.strip():
            return False
        self._set_busy(True)
        self._saved_user_message = False

        def failed(error: BaseException) -> None:
            self._set_busy(False)
            self.conversation.mark_stopped()
            message = str(error) if isinstance(error, ContextDeskError) else f"The reply failed: {error!r}"
            if not self._saved_user_message:
                self.send_failed.emit(text, message)
            else:
                self.conversation.add_notice(message, status="error")
            if not isinstance(error, ContextDeskError):
                logger.error("sending failed", exc_info=error)

        self.bridge.stream(lambda: self.session.send(text), self._on_event, self._on_done, failed)
        return True

    def stop(self) -> None:
        """Stop the reply in progress; the text received so far is kept, marked stopped."""
        if self._busy:
            self.bridge.call_soon(self.session.cancel)

    def session_context_of_last_reply(self) -> RequestContext | None:
        row = self.conversation.last_context_row()
        return None if row is None else self.conversation.entry(row).context

    def decide(self, row: int, decision: ApprovalDecision) -> None:
        self.conversation.decide(row, decision)

    def _on_event(self, event: ChatEvent) -> None:
        if isinstance(event, UserMessageSaved):
            self._saved_user_message = True
            self.title_changed.emit(self.session.title)
            self.activity.emit()
            self.items_changed.emit()  # @mentions may have added items
        self.conversation.apply(event)

    def _on_done(self, completed: bool) -> None:
        if not completed:
            self.conversation.mark_stopped()
        self._set_busy(False)
        self.activity.emit()

    # --- items and settings -------------------------------------------------------------------

    def items(self) -> tuple[SessionItem, ...]:
        return self.session.items

    def add_item(self, ref: ItemRef) -> None:
        self.bridge.call(self.session.add_item, ref, on_result=lambda _: self.items_changed.emit(), on_error=self._report)

    def remove_item(self, ref: ItemRef) -> None:
        self.bridge.call(
            self.session.remove_item, ref, on_result=lambda _: self.items_changed.emit(), on_error=self._report
        )

    def override_settings(
        self, *, chat: Mapping[str, Any] | None = None, selection: Mapping[str, Any] | None = None
    ) -> None:
        def apply() -> None:
            self.session.override_settings(chat=chat, selection=selection)

        self.bridge.call(apply, on_result=lambda _: self.settings_changed.emit(), on_error=self._report)

    def rename(self, title: str) -> None:
        def done(_: None) -> None:
            self.title_changed.emit(title)

        self.bridge.call(self.session.rename, title, on_result=done, on_error=self._report)

    def set_agent(self, agent: Agent) -> None:
        """The agent was reloaded: this chat uses the new one from its next message."""
        self.session.agent = agent
        self.items_changed.emit()
        self.settings_changed.emit()

    def _report(self, error: BaseException) -> None:
        self.error.emit(str(error) if isinstance(error, ContextDeskError) else repr(error))
