"""One open chat: its ChatSession on the core thread, its transcript model on the GUI thread.

Sending, stopping and the reply's events are here; compaction, what-if and the chat's items are
in the mixins it is made of (chat_compaction.py, chat_what_if.py, chat_items.py)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from agent_core.agent.agent import Agent
from agent_core.chat.events import (
    ApprovalDecision,
    ChatEvent,
    Compacted,
    ContextBuilt,
    ItemPulled,
    MemoriesWritten,
    ReplyFinished,
    SubagentFinished,
    SubagentProgress,
    SubagentStarted,
    UserMessageSaved,
)
from agent_core.context.items import ContextManifest, RequestContext
from agent_core.errors import ContextDeskError
from agent_core.providers.base import ToolCalling
from agent_core.store.chats import StoredMessage
from desktop.bridge import CoreBridge, Generation
from desktop.controllers.chat_compaction import ChatCompaction
from desktop.controllers.chat_items import ChatItems
from desktop.controllers.chat_memory_actions import ChatMemoryActions
from desktop.controllers.chat_what_if import ChatWhatIf
from desktop.models.conversation import ConversationModel
from desktop.models.conversation_entries import Entry
from desktop.models.subagent_runs import SubagentRunsModel

if TYPE_CHECKING:
    from agent_core.chat.session import ChatSession
    from desktop.mcp_apps.chat_apps import ChatApps

__all__ = ["ChatController"]

logger = logging.getLogger(__name__)


class ChatController(ChatCompaction, ChatWhatIf, ChatItems, QObject):
    busy_changed = Signal(bool)
    send_failed = Signal(str, str)  # the text that was not sent, why
    error = Signal(str)  # something to show near the chat (not a failed reply: that is inline)
    title_changed = Signal(str)
    activity = Signal()  # the chat was used: the chat list moves it to the top
    items_changed = Signal()
    settings_changed = Signal()
    history_loaded = Signal()
    compacting_changed = Signal(bool)
    model_limit_warned = Signal(str, str)  # the task (e.g. "compaction"), the one-line warning
    context_changed = Signal()  # a reply finished or the history loaded: the gauge reads it again
    model_checked = Signal()  # whether the chat's model takes tools is known (again)
    # A reply recalled memories (their use was counted) or memories were written from a message.
    memories_touched = Signal()

    def __init__(self, bridge: CoreBridge, session: ChatSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.session = session
        self.conversation = ConversationModel(self)
        self._busy = False
        self._compacting = False
        self._history_pending = False
        # A reply asked for while the history is still being read: (its events, its text).
        self._waiting_reply: tuple[Callable[[], AsyncIterator[ChatEvent]], str | None] | None = None
        # After a compaction (or its undo): what the next request would cost, until the next reply.
        self.next_request_estimate: ContextManifest | None = None
        # After a compaction: the same estimate made just before it, shown beside it.
        self.estimate_before_compaction: ContextManifest | None = None
        self._saved_user_message = False
        self._user_message_id: int | None = None  # the newest message sent, for its memory rows
        self._what_if_generation = Generation()
        self._replies = Generation()  # the newest send: an older one still finishing changes nothing
        self.subagent_runs = SubagentRunsModel(self)  # this chat's sub-agents, live and saved
        self.apps: ChatApps | None = None  # the views of its tool calls with a UI (MCP Apps)
        self._model_generation = Generation()
        self._tool_calling: ToolCalling = "native"
        self.memories = ChatMemoryActions(
            bridge,
            session.memories,
            self.conversation,
            self._message,
            (session.remove_item, session.readmit),
            self,
        )
        self.memories.error.connect(self.error)
        self.settings_changed.connect(self.check_model)
        self.check_model()

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

    # --- the model -------------------------------------------------------------------------------

    @property
    def tool_calling(self) -> ToolCalling:
        """How the chat's model uses tools ("native" until known, and when its provider is not set
        up: sending then explains that problem instead)."""
        return self._tool_calling

    def check_model(self) -> None:
        """Ask the chat's provider, on the core thread, how its model uses tools."""
        token = self._model_generation.next()

        def done(tool_calling: ToolCalling) -> None:
            if self._model_generation.is_current(token):
                self._tool_calling = tool_calling
                self.model_checked.emit()

        self.bridge.call(self.session.tool_calling, on_result=done, on_error=self._report)

    # --- history ------------------------------------------------------------------------------

    def load_history(self) -> None:
        # Read in a worker thread while a reply streams on the core loop: a reply started before
        # the history arrives would be wiped by it (the conversation is reset to what was read),
        # so a message sent meanwhile waits for it (see _stream).
        self._history_pending = True

        def loaded(messages: list[StoredMessage]) -> None:
            self.conversation.load(messages)
            self.subagent_runs.set_contexts([m.request_context for m in messages if m.request_context])
            self.history_loaded.emit()
            self._estimate_next_request()
            if self.session.memories.available:
                self.memories.show_open_proposals()
            self._history_arrived()

        def failed(error: BaseException) -> None:
            self._report(error)
            self._history_arrived()

        self.bridge.call(self.session.history, on_result=loaded, on_error=failed)

    def _history_arrived(self) -> None:
        self._history_pending = False
        waiting, self._waiting_reply = self._waiting_reply, None
        if waiting is not None and self._busy:  # not stopped meanwhile
            self._begin(*waiting)

    # --- sending ------------------------------------------------------------------------------

    def send(self, text: str) -> bool:
        """Start answering ``text``; False (and nothing sent) while a reply is still running.

        The chat is free again at the reply's ReplyFinished: the model may still be looking for
        memories in the message (``extraction: model``), and its proposals arrive later."""
        if not text.strip():
            return False
        return self._stream(lambda: self.session.send(text), text)

    def regenerate(self) -> bool:
        """Answer the last message again (Retry after an error, Regenerate on a reply); the
        answer it replaces stays in the chat, dimmed. False while a reply is running."""
        return self._stream(self.session.regenerate, None)

    def edit_and_resend(self, message_id: int, text: str) -> bool:
        """Send ``text`` in place of the message ``message_id`` as its next version; it and what
        followed are kept as a branch (◀ ▶ under the message). False while a reply is running."""
        if not text.strip():
            return False
        return self._stream(lambda: self.session.edit_and_resend(message_id, text), text)

    def show_version(self, message_id: int, step: int) -> bool:
        """Show the version ``step`` places from the edited message ``message_id`` (its branch,
        as it was left); the transcript is read again once it is. False while a reply runs."""
        if self._busy or self._compacting:
            return False
        self.bridge.call(
            self.session.show_version,
            message_id,
            step,
            on_result=lambda _: self.load_history(),
            on_error=self._report,
        )
        return True

    def _stream(self, events: Callable[[], AsyncIterator[ChatEvent]], text: str | None) -> bool:
        """Run a reply's events into the conversation; ``text`` is what goes back into the
        message box if nothing could be saved (None: nothing was typed)."""
        if self._busy or self._compacting:
            return False
        self._set_busy(True)
        if self._history_pending:
            self._waiting_reply = (events, text)  # started once the history is in
            return True
        self._begin(events, text)
        return True

    def _begin(self, events: Callable[[], AsyncIterator[ChatEvent]], text: str | None) -> None:
        self._saved_user_message = False
        token = self._replies.next()

        def on_event(event: ChatEvent) -> None:
            self._on_event(event)
            if isinstance(event, ReplyFinished) and self._replies.is_current(token):
                self._on_done(True)

        def done(completed: bool) -> None:
            if self._replies.is_current(token) and self._busy:
                self._on_done(completed)

        def failed(error: BaseException) -> None:
            if not isinstance(error, ContextDeskError):
                logger.error("sending failed", exc_info=error)
            message = str(error) if isinstance(error, ContextDeskError) else f"The reply failed: {error!r}"
            if not self._replies.is_current(token) or not self._busy:
                self.conversation.add_notice(
                    message, status="error"
                )  # after its reply: keep the chat as it is
                return
            self._set_busy(False)
            self.conversation.mark_stopped()
            if not self._saved_user_message and text is not None:
                self.send_failed.emit(text, message)
            else:
                self.conversation.add_notice(message, status="error")

        self.bridge.stream(events, on_event, done, failed)

    def stop(self) -> None:
        """Stop the reply in progress; the text received so far is kept, marked stopped."""
        if self._waiting_reply is not None:  # not started: the history is still being read
            _, text = self._waiting_reply
            self._waiting_reply = None
            self._set_busy(False)
            if text is not None:
                self.send_failed.emit(text, "Stopped before it was sent.")
            return
        if self._busy:
            self.bridge.call_soon(self.session.cancel)

    def close(self) -> None:
        """The chat's tab closes: its app views torn down, any reply stopped, then other programs
        may write to the chat."""
        if self.apps is not None:
            self.apps.close()
        self.bridge.submit(self.session.close())  # never raises; this object may be gone by then

    def last_measured_context(self) -> RequestContext | None:
        """What the context gauge shows: the newest reply's context that has token costs."""
        return self.conversation.last_measured_context()

    def session_context_of_last_reply(self) -> RequestContext | None:
        row = self.conversation.last_context_row()
        return None if row is None else self.conversation.entry(row).context

    def last_reply_entry(self) -> Entry | None:
        """The newest reply row with a context (for View Context and the gauge)."""
        row = self.conversation.last_context_row()
        return None if row is None else self.conversation.entry(row)

    def cancel_subagent(self, call_id: str) -> None:
        """Stop one running sub-agent (and its own); the reply goes on with what it had."""
        self.bridge.call_soon(lambda: self.session.cancel_tool_call(call_id))

    def decide(self, row: int, decision: ApprovalDecision) -> None:
        self.conversation.decide(row, decision)

    def _on_event(self, event: ChatEvent) -> None:
        if isinstance(event, UserMessageSaved):
            self._saved_user_message = True
            self._user_message_id = event.message.id
            self.title_changed.emit(self.session.title)
            self.activity.emit()
            self.items_changed.emit()  # @mentions may have added items
        if isinstance(event, ContextBuilt):
            self.items_changed.emit()  # @mentions in the message are in the chat by now
            if event.context.of_type("memory"):
                self.memories_touched.emit()  # recall counted their use before the context was built
        if isinstance(event, ItemPulled | Compacted):
            self.items_changed.emit()  # a skill the model loaded joined the chat; a compaction unloads
        if isinstance(event, Compacted):
            self.conversation.add_summary(event.message, automatic=event.automatic, fresh=True)
            return
        if isinstance(event, SubagentStarted | SubagentProgress | SubagentFinished):
            run = self.subagent_runs.apply(event)
            if run is not None and run.top_level:
                self.conversation.set_subagent(run)
            return
        if isinstance(event, MemoriesWritten):
            self.memories_touched.emit()
            # Under the message they came from (a merged one's provenance may be another chat's).
            for outcome in event.outcomes:
                self.conversation.add_memory(outcome, after_message=self._user_message_id)
            for note in event.notes:
                self.conversation.add_notice(note)
            return
        self.conversation.apply(event)

    def _on_done(self, completed: bool) -> None:
        self.next_request_estimate = None  # measured again from this reply's request, below
        self.estimate_before_compaction = None
        if not completed:
            stopped = self.conversation.mark_stopped()
            if stopped is not None:
                self._show_saved_context(stopped)
        self._set_busy(False)
        self.activity.emit()
        self._estimate_next_request()

    def _show_saved_context(self, message_id: int) -> None:
        """Read back a stopped reply as the core saved it: its context then holds the token counts
        known when it stopped (estimated where the provider had not reported them yet)."""

        def saved(message: StoredMessage) -> None:
            self.conversation.set_saved_context(message)
            self._estimate_next_request()  # from the stopped request's own figures

        def unreadable(error: BaseException) -> None:
            logger.warning("could not read the stopped reply back: %s", error)

        self.bridge.call(self._message, message_id, on_result=saved, on_error=unreadable)

    def _message(self, message_id: int) -> StoredMessage:
        for message in self.session.history():
            if message.id == message_id:
                return message
        raise ContextDeskError("That reply is no longer in this chat: open View Context on a newer one.")

    # --- settings ---------------------------------------------------------------------------------

    def override_settings(
        self,
        *,
        chat: Mapping[str, Any] | None = None,
        selection: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
        memory: Mapping[str, Any] | None = None,
    ) -> None:
        def apply() -> None:
            self.session.override_settings(chat=chat, selection=selection, context=context, memory=memory)

        self.bridge.call(apply, on_result=lambda _: self.settings_changed.emit(), on_error=self._report)

    def rename(self, title: str) -> None:
        def done(_: None) -> None:
            self.title_changed.emit(title)

        self.bridge.call(self.session.rename, title, on_result=done, on_error=self._report)

    def set_agent(self, agent: Agent) -> None:
        """The agent was reloaded: this chat uses the new one from its next message."""
        self.session.agent = agent
        self.items_changed.emit()
        self.settings_changed.emit()  # which checks the model again: its provider may have changed

    def _report(self, error: BaseException) -> None:
        self.error.emit(str(error) if isinstance(error, ContextDeskError) else repr(error))
