"""A chat's compaction, for ChatController: the older turns summarized now (``/compact``), after
a check of the chat's model (a limited one is warned about first), a compaction undone, a summary
edited, and what the next request would cost before and after, measured the same way."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import SignalInstance

from agent_core.context.items import ContextManifest, RequestContext
from agent_core.errors import ContextDeskError
from agent_core.providers.limit_warning import model_limit_warning
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
    estimate_before_compaction: ContextManifest | None
    _busy: bool
    _compacting: bool
    activity: SignalInstance
    compacting_changed: SignalInstance
    context_changed: SignalInstance
    model_limit_warned: SignalInstance

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

    def compact(self, *, run_anyway: bool = False) -> bool:
        """Summarize the older turns now (``/compact``); False while a reply or compaction runs.
        On a model that cannot summarize reliably, ``model_limit_warned`` is emitted instead and
        nothing runs until ``compact(run_anyway=True)``."""
        if self._busy or self._compacting:
            return False
        self._set_compacting(True)
        if run_anyway:
            self._run_compaction()
            return True

        def checked(warning: str | None) -> None:
            if warning is None:
                self._run_compaction()
                return
            self._set_compacting(False)
            self.model_limit_warned.emit("compaction", warning)

        def unchecked(error: BaseException) -> None:
            # The model could not be resolved: the compaction says why when it runs.
            logger.warning("could not check the chat's model: %s", error)
            self._run_compaction()

        self.bridge.submit(self._limit_warning(), checked, unchecked)
        return True

    async def _limit_warning(self) -> str | None:
        session = self.session
        if not await asyncio.to_thread(session.has_turns_to_compact):
            return None  # nothing to compact: the compaction says so, with no word about the model
        model = await asyncio.to_thread(session.models.resolve, session.settings.chat.model)
        return await model_limit_warning(model.provider, model.model_id, model.ref, "compaction")

    def _run_compaction(self) -> None:
        last = self.last_measured_context()
        manifest = last.manifest if last is not None else None
        session = self.session

        async def measured() -> tuple[StoredMessage | None, ContextManifest | None, ContextManifest | None]:
            # The same measure before and after: what the next request would send.
            before = await asyncio.to_thread(session.estimate_next_request, manifest) if manifest else None
            message = await session.compact()
            after = (
                await asyncio.to_thread(session.estimate_next_request, manifest)
                if manifest and message is not None
                else None
            )
            return message, before, after

        def done(result: tuple[StoredMessage | None, ContextManifest | None, ContextManifest | None]) -> None:
            message, before, after = result
            self._set_compacting(False)
            if message is None:
                turns = self.session.context_settings.keep_recent_turns
                self.conversation.add_notice(
                    f"Nothing to compact yet: the last {turns} turns are always kept as they are "
                    "(Keep recent turns in the chat settings)."
                )
                return
            self.conversation.add_summary(message, automatic=False, fresh=True)
            self.activity.emit()
            if after is not None:
                # The gauge shows both, so "before" and "after" are the same measure.
                self.next_request_estimate = after
                self.estimate_before_compaction = before
                self.context_changed.emit()
            else:
                self._estimate_next_request()

        def failed(error: BaseException) -> None:
            self._set_compacting(False)
            reason = str(error) if isinstance(error, ContextDeskError) else repr(error)
            self.conversation.add_notice(
                f"Compaction failed, the chat is unchanged: {reason}", status="error"
            )

        self.bridge.submit(measured(), done, failed)

    def _estimate_next_request(self) -> None:
        """What the gauge shows: what the next request would cost with the history as it is now
        (after a reply, a compaction or its undo), so the number before a compaction and the one
        after it measure the same thing. The last request's exact figures are in View Context."""
        last = self.last_measured_context()
        if last is None or last.manifest is None:
            self.context_changed.emit()
            return
        manifest = last.manifest

        def estimated(estimate: ContextManifest) -> None:
            self.next_request_estimate = estimate
            self.estimate_before_compaction = None
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
