"""A chat's what-if, for ChatController: the context a reply would get with other settings and
items (a stale answer dropped), and those changes made the chat's own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import SignalInstance

from agent_core.chat.events import ChatEvent
from agent_core.context.items import ItemRef, RequestContext
from agent_core.errors import ContextDeskError
from agent_core.store.chats import StoredMessage
from desktop.bridge import CoreBridge, Generation
from desktop.models.conversation import ConversationModel
from desktop.models.conversation_entries import Entry

if TYPE_CHECKING:
    from agent_core.chat.session import ChatSession

__all__ = ["ChatWhatIf"]


class ChatWhatIf:
    """Part of ChatController (a mixin)."""

    bridge: CoreBridge
    session: ChatSession
    conversation: ConversationModel
    _what_if_generation: Generation
    items_changed: SignalInstance
    settings_changed: SignalInstance

    if TYPE_CHECKING:

        def _message(self, message_id: int) -> StoredMessage: ...

        def _report(self, error: BaseException) -> None: ...

        def _stream(self, events: Callable[[], AsyncIterator[ChatEvent]], text: str | None) -> bool: ...

    # --- what-if ------------------------------------------------------------------------------

    def what_if(
        self,
        message_id: int,
        selection: Mapping[str, Any],
        include: Iterable[ItemRef],
        exclude: Iterable[ItemRef],
        on_result: Callable[[RequestContext], None],
        on_error: Callable[[BaseException], None],
    ) -> None:
        """The context the reply ``message_id`` would get with these changes; stale results are dropped."""
        token = self._what_if_generation.next()
        include, exclude = list(include), list(exclude)

        async def run() -> RequestContext:
            reply = await asyncio.to_thread(self._message, message_id)
            return await self.session.what_if(reply, selection=selection, include=include, exclude=exclude)

        def done(context: RequestContext) -> None:
            if self._what_if_generation.is_current(token):
                on_result(context)

        def failed(error: BaseException) -> None:
            if self._what_if_generation.is_current(token):
                on_error(error)

        self.bridge.submit(run(), done, failed)

    def question_of(self, message_id: int) -> str | None:
        """The user message a reply answered, from the transcript (None when it is not shown)."""
        question = self._question_entry(message_id)
        return question.text if question is not None else None

    def _question_entry(self, message_id: int) -> Entry | None:
        entries = self.conversation.entries()
        rows = [
            r
            for r, e in enumerate(entries)
            if e.message_id == message_id and e.kind in ("assistant", "error")
        ]
        if not rows:
            return None
        return next((e for e in reversed(entries[: rows[0]]) if e.kind == "user"), None)

    def answer_again(self, message_id: int, text: str) -> bool:
        """What-if's Resend: the question the reply ``message_id`` answered is answered again as
        ``text``, not sent a second time (see ``ChatSession.answer_again``). False while a reply
        is running, and when that question is no longer shown (the chat says why)."""
        question = self._question_entry(message_id)
        if question is None or question.message_id is None:
            self._report(ContextDeskError("the question of that reply is no longer in this chat"))
            return True
        question_id = question.message_id
        return self._stream(lambda: self.session.answer_again(question_id, text), None)

    def apply_what_if(
        self,
        selection: Mapping[str, Any],
        include: Iterable[ItemRef],
        exclude: Iterable[ItemRef],
        then: Callable[[], None],
    ) -> None:
        """Make the what-if's settings and item changes this chat's, then call ``then`` (GUI thread).

        Items the what-if excluded leave the chat; near-misses it included join it. Done in one
        call on the core thread so the settings are in place before anything is sent."""
        include, exclude = list(include), list(exclude)

        def apply() -> None:
            if selection:
                self.session.override_settings(selection=selection)
            for ref in include:
                self.session.add_item(ref, learn=True)
            in_chat = {item.ref for item in self.session.items}
            for ref in exclude:
                if ref in in_chat:
                    self.session.remove_item(ref, learn=True)

        def done(_: None) -> None:
            self.settings_changed.emit()
            self.items_changed.emit()
            then()

        self.bridge.call(apply, on_result=done, on_error=self._report)
