"""Memories in one chat, behind one object: recall for a request, extraction around a reply, and
what the user does to memories from the chat: save the user's words or a message ("Remember
this"), answer a proposal (Accept / Edit / Reject), and Forget, Edit or Pin a memory a reply used
(View Context).

The chat calls :meth:`ChatMemories.recall` while it builds a request's context and
:meth:`ChatMemories.extract_around` around its reply; every memory policy (what is recalled, rules
or model) is decided here and in the modules it calls, and it returns plain values the chat turns
into events. The other methods block (SQLite, and the embedding model for new words): call them
off the event loop and off the GUI thread.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Callable, Collection, Iterable
from typing import TypeVar

from agent_core.agent.agent import Agent
from agent_core.agent.schema import MemoryConfig
from agent_core.context.items import ItemRef, RequestContext, SessionItem
from agent_core.errors import ContextDeskError
from agent_core.memory.book import MemoryBook, MemoryDraft, WriteOutcome
from agent_core.memory.chat_extraction import ChatOfMessage, MemoryWrites, ProviderResolver, extract_around
from agent_core.memory.records import Memory, Provenance, Speaker
from agent_core.memory.service import MemoryService, RecalledMemories
from agent_core.store.chats import StoredMessage

__all__ = ["QUOTE_LIMIT", "ChatMemories"]

logger = logging.getLogger(__name__)

# The words a memory was saved from are kept as its quote; a long message keeps its start.
QUOTE_LIMIT = 2000

Event = TypeVar("Event")


class ChatMemories:
    def __init__(
        self,
        service: MemoryService | None,
        agent: Callable[[], Agent],
        config: Callable[[], MemoryConfig],
        session_id: str,
        *,
        excluded: Callable[[], Iterable[ItemRef]] = tuple,
        resolve_provider: ProviderResolver | None = None,
        marks_use: bool = True,
    ) -> None:
        """``agent``, ``config`` and ``excluded`` (the items left out of the chat) are read at each
        call: the agent may be reloaded and the chat's settings changed while it is open.
        ``resolve_provider`` finds the chat's model for ``extraction: model`` (None: the rules).
        ``marks_use``: what is recalled goes into a sent request (recency and use counts)."""
        self._service = service
        self._agent = agent
        self._config = config
        self._excluded = excluded
        self._resolve_provider = resolve_provider
        self._marks_use = marks_use
        # Memories the user just saved or accepted here: the next reply's context holds them
        # whatever its message is about, so it never contradicts the "Remembered" card above it.
        self._just_saved: set[str] = set()
        self.session_id = session_id

    def preview(self) -> ChatMemories:
        """The same memories for a request that is not sent (a what-if): recall marks none used."""
        return ChatMemories(
            self._service,
            self._agent,
            self._config,
            self.session_id,
            excluded=self._excluded,
            resolve_provider=self._resolve_provider,
            marks_use=False,
        )

    @property
    def available(self) -> bool:
        return self._service is not None

    def _book(self) -> MemoryBook:
        if self._service is None:
            raise ContextDeskError(
                "Memories are not available in this window: the chat database could not be opened "
                "(see the log), or the app runs without memory support."
            )
        return self._service.book_for(self._agent())

    def remember(self, text: str, message: StoredMessage | None = None) -> WriteOutcome:
        """Save ``text`` (the user's words) at once; with ``message``, it was saved from that
        message ("Remember this"), whose words become the quote and whose author the speaker.

        Raises:
            MemoryInputError: the text is empty or too long.
            StoreError: the database could not be written.
        """
        if not self._config().enabled:
            raise ContextDeskError(
                "Memories are off for this chat: turn them on in the chat settings or the agent's memory.enabled."
            )
        book = self._book()
        if message is None:
            provenance = Provenance(self.session_id, None, "user", text)
        else:
            speaker: Speaker = "assistant" if message.role == "assistant" else "user"
            provenance = Provenance(self.session_id, message.id, speaker, message.content[:QUOTE_LIMIT])
        draft = MemoryDraft(
            text, scope=book.config.default_scope, provenance=provenance, session_id=self.session_id
        )
        outcome = book.add(draft, "user")
        self.saved_here([outcome.memory])
        return outcome

    def saved_here(self, memories: Iterable[Memory | None]) -> None:
        """``memories`` were just saved in this chat: the active ones are recalled for the next
        request sent, whatever its message (see :meth:`recall`)."""
        self._just_saved.update(m.id for m in memories if m is not None and m.status == "active")

    def decide(self, memory_id: str, accept: bool) -> Memory:
        """Accept (it is recalled from the next message) or reject a proposed memory."""
        book = self._book()
        if not accept:
            return book.reject(memory_id)
        accepted = book.accept(memory_id)
        self.saved_here([accepted])
        return accepted

    def accept_edited(self, memory_id: str, text: str) -> Memory:
        """The user corrected a proposal's words before accepting it."""
        book = self._book()
        memory = book.get(memory_id)
        if text.strip() and text.strip() != memory.text:
            book.edit(memory_id, text)
        accepted = book.accept(memory_id)
        self.saved_here([accepted])
        return accepted

    def edit(self, memory_id: str, text: str) -> Memory:
        return self._book().edit(memory_id, text)

    def pin(self, memory_id: str, pinned: bool) -> Memory:
        return self._book().pin(memory_id, pinned)

    def forget(self, memory_id: str) -> Memory:
        return self._book().forget(memory_id)

    def get(self, memory_id: str) -> Memory:
        return self._book().get(memory_id)

    def open_proposals(self) -> list[Memory]:
        """The proposals from this chat's messages still waiting for an answer (shown again as
        Accept / Edit / Reject when the chat is reopened). Reads the database only.

        Raises:
            StoreError: the database cannot be read.
        """
        if self._service is None:
            return []
        proposed = self._service.find(self._agent(), ("proposed",))
        return sorted(
            (m for m in proposed if m.provenance.session_id == self.session_id),
            key=lambda m: (m.provenance.message_id or 0, m.created_at),
        )

    def texts(self, memory_ids: Collection[str]) -> dict[str, str]:
        """The current words of these memories; no model needed."""
        return self._service.texts(memory_ids) if self._service is not None else {}

    def context_texts(self, context: RequestContext) -> dict[str, str]:
        """The words of the memories ``context`` recalled or left out, as they read now (a few
        key lookups: quick enough for a dialog to call). Missing ones were forgotten or deleted."""
        ids = [i.ref.name for i in context.of_type("memory")]
        ids += [m.ref.name for m in context.near_misses if m.ref.type == "memory"]
        try:
            return self.texts(ids)
        except ContextDeskError as error:
            logger.warning("could not read the memories of a reply: %s", error)
            return {}

    # --- the two steps of a message -----------------------------------------------------------

    async def recall(
        self, message: str, chat_items: Iterable[SessionItem], excluded: Collection[ItemRef] = ()
    ) -> RecalledMemories:
        """The memories ``message`` recalls in this chat: none when memories are off or not
        available. Memories among ``chat_items`` (the user added them, or a what-if turned them
        on) are recalled whatever they match; those left out of the chat or in ``excluded`` (a
        what-if turned them off) never are. Those recalled are marked used unless this is a
        :meth:`preview`. Never raises for a model or database fault in recall: the note says what
        went wrong.

        Raises:
            StoreError: their use could not be written.
        """
        config = self._config()
        if self._service is None or not config.enabled:
            return RecalledMemories()
        off = {ref.name for ref in (*self._excluded(), *excluded) if ref.type == "memory"}
        forced = {i.ref.name for i in chat_items if i.ref.type == "memory" and i.ref not in excluded}
        just_saved = set(self._just_saved) if self._marks_use else set()
        recalled = await self._service.recall(
            self._agent(),
            message,
            config,
            session_id=self.session_id,
            excluded=off,
            forced=(forced | just_saved) - off,
            mark_used=self._marks_use,
        )
        self._just_saved -= just_saved  # in this request: later ones recall them as usual
        return recalled

    def extract_around(
        self,
        text: str,
        message_id: int,
        previous: str | None,
        model_ref: str,
        reply: AsyncGenerator[Event, None],
    ) -> AsyncGenerator[Event | MemoryWrites, None]:
        """``reply``'s events, with what the user's message ``text`` (saved as ``message_id``;
        ``previous``: the user's message before it) wrote to memories: the rules' writes before
        the reply, or the model's after it (``chat_extraction.extract_around``)."""
        chat = ChatOfMessage(self._service, self._agent(), self._config(), self.session_id, message_id)
        return extract_around(chat, text, previous, self._resolve_provider, model_ref, reply)
