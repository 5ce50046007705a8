"""What one chat can do to memories: save the user's words or a message ("Remember this"), answer
a proposal (Accept / Edit / Reject), and Forget, Edit or Pin a memory a reply used (View Context).

Every method blocks (SQLite, and the embedding model for new words): call it off the event loop
and off the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from agent_core.agent.agent import Agent
from agent_core.agent.schema import MemoryConfig
from agent_core.errors import ContextDeskError
from agent_core.memory.book import MemoryBook, MemoryDraft, WriteOutcome
from agent_core.memory.records import Memory, Provenance, Speaker
from agent_core.memory.service import MemoryService
from agent_core.store.chats import StoredMessage

__all__ = ["QUOTE_LIMIT", "ChatMemories"]

# The words a memory was saved from are kept as its quote; a long message keeps its start.
QUOTE_LIMIT = 2000


class ChatMemories:
    def __init__(
        self,
        service: MemoryService | None,
        agent: Callable[[], Agent],
        config: Callable[[], MemoryConfig],
        session_id: str,
    ) -> None:
        """``agent`` and ``config`` are read at each call: the agent may be reloaded and the
        chat's settings changed while it is open."""
        self._service = service
        self._agent = agent
        self._config = config
        self.session_id = session_id

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
        return book.add(draft, "user")

    def decide(self, memory_id: str, accept: bool) -> Memory:
        """Accept (it is recalled from the next message) or reject a proposed memory."""
        book = self._book()
        return book.accept(memory_id) if accept else book.reject(memory_id)

    def accept_edited(self, memory_id: str, text: str) -> Memory:
        """The user corrected a proposal's words before accepting it."""
        book = self._book()
        memory = book.get(memory_id)
        if text.strip() and text.strip() != memory.text:
            book.edit(memory_id, text)
        return book.accept(memory_id)

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
