"""A chat's compaction, for ChatController: the older turns summarized now (``/compact``), a
compaction undone, a summary edited, and what the next request would cost afterwards."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import SignalInstance

from agent_core.context.items import ContextManifest, RequestContext
from agent_core.errors import ContextDeskError
from agent_core.store.chats import StoredMessage
from desktop.bridge import CoreBridge
from desktop.models.conversation import ConversationModel

if TYPE_CHECKING:
    from agent_core.chat.session import ChatSession

__all__ = ["ChatCompaction"]

logger = logging.getLogger(__name__)


class ChatCompaction:
    """Part of ChatController (a mixin)."""

    bridge: CoreBridge
    session: ChatSession
    conversation: ConversationModel
    next_request_estimate: ContextManifest | None
    _busy: bool
    _compacting: bool
    activity: SignalInstance
    compacting_changed: SignalInstance
    context_changed: SignalInstance

    if TYPE_CHECKING:

        def last_measured_context(self) -> RequestContext | None: ...

        def _report(self, error: BaseException) -> None: ...

    # --- compaction ---------------------------------------------------------------------------

    @property
    def compacting(self) -> bool:
        return self._compacting

    def _set_compacting(self, compacting: bool) -> None:
        if compacting != self._compacting:
            self._compacting = compacting
            self.compacting_changed.emit(compacting)

    def compact(self) -> bool:
        """Summarize the older turns now (``/compact``); False while a reply or compaction runs."""
        if self._busy or self._compacting:
            return False
        self._set_compacting(True)

        def done(message: StoredMessage | None) -> None:
            self._set_compacting(False)
            if message is None:
                turns = self.session.context_settings.keep_recent_turns
                self.conversation.add_notice(
                    f"Nothing to compact yet: the last {turns} turns are always kept as they are "
                    "(Keep recent turns in the chat settings)."
                )
            else:
                self.conversation.add_summary(message, automatic=False, fresh=True)
                self.activity.emit()
                self._estimate_next_request()

        def failed(error: BaseException) -> None:
            self._set_compacting(False)
            reason = str(error) if isinstance(error, ContextDeskError) else repr(error)
            self.conversation.add_notice(
                f"Compaction failed, the chat is unchanged: {reason}", status="error"
            )

        self.bridge.submit(self.session.compact(), done, failed)
        return True

    def _estimate_next_request(self) -> None:
        """The history changed with no request made: the gauge shows what the next one would cost
        (an estimate) until a reply brings exact figures."""
        last = self.last_measured_context()
        if last is None or last.manifest is None:
            self.context_changed.emit()
            return
        manifest = last.manifest

        def estimated(estimate: ContextManifest) -> None:
            self.next_request_estimate = estimate
            self.context_changed.emit()

        def failed(error: BaseException) -> None:
            logger.warning("could not estimate the next request: %s", error)
            self.context_changed.emit()

        self.bridge.call(self.session.estimate_next_request, manifest, on_result=estimated, on_error=failed)

    def undo_compaction(self, row: int) -> None:
        """Take back the compaction whose summary is on ``row``: the covered turns count again."""
        message = self.conversation.entry(row).message
        if message is None:
            return

        def undone(_: None) -> None:
            self.conversation.remove_summary(message.id)
            self.conversation.add_notice("Compaction undone: the earlier messages are sent again in full.")
            self._estimate_next_request()

        self.bridge.call(self.session.undo_compaction, message, on_result=undone, on_error=self._report)

    def edit_summary(self, row: int, text: str) -> None:
        """Save the user's edit of the summary on ``row``; the next request uses it."""
        message = self.conversation.entry(row).message
        if message is None:
            return
        self.bridge.call(
            self.session.edit_summary,
            message,
            text,
            on_result=self.conversation.update_summary,
            on_error=self._report,
        )
