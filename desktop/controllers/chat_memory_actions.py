"""The memory rows of one chat's transcript and what the user does with them: Accept / Edit /
Reject a proposal, Forget a saved memory, "Remember this" on a message, and the Forget / Edit / Pin
of View Context. Every change runs on the core thread; the row shows "working" until it is done
and goes back to how it was (with the reason shown) if it fails."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from agent_core.context.items import ItemRef
from agent_core.errors import ContextDeskError
from agent_core.memory.book import WriteOutcome
from agent_core.memory.chat_memories import ChatMemories
from agent_core.memory.records import Memory
from agent_core.store.chats import StoredMessage
from desktop.bridge import CoreBridge
from desktop.models.conversation import ConversationModel
from desktop.models.conversation_entries import MemoryRowStatus

__all__ = ["ChatMemoryActions"]

MessageLookup = Callable[[int], StoredMessage]


class ChatMemoryActions(QObject):
    error = Signal(str)
    changed = Signal(object)  # Memory: a memory was saved, answered, edited, pinned or forgotten

    def __init__(
        self,
        bridge: CoreBridge,
        memories: ChatMemories,
        conversation: ConversationModel,
        message: MessageLookup,
        chat_membership: tuple[Callable[[ItemRef], None], Callable[[ItemRef], None]],
        parent: QObject | None = None,
    ) -> None:
        """``chat_membership``: leave an item out of the chat, and let it in again (blocking)."""
        super().__init__(parent)
        self.bridge = bridge
        self.memories = memories
        self.conversation = conversation
        self._message = message
        self._leave_out, self._readmit = chat_membership

    # --- proposals in the transcript -------------------------------------------------------------

    def show_open_proposals(self) -> None:
        """After the history loads: the proposals of this chat nobody answered yet."""
        memories = self.memories

        def read() -> list[tuple[Memory, str]]:
            proposals = memories.open_proposals()
            replaced = memories.texts([m.supersedes for m in proposals if m.supersedes])
            return [(m, replaced.get(m.supersedes or "", "")) for m in proposals]

        self.bridge.call(read, on_result=self.conversation.add_open_proposals, on_error=self._report)

    def accept(self, row: int, edited_text: str | None = None) -> None:
        """Accept the proposal on ``row``, with the user's corrected words if given."""
        memory = self._memory_on(row, "proposed")
        if memory is None:
            return
        if edited_text is not None:
            self._change(row, "proposed", "accepted", self.memories.accept_edited, memory.id, edited_text)
        else:
            self._change(row, "proposed", "accepted", self.memories.decide, memory.id, True)

    def reject(self, row: int) -> None:
        memory = self._memory_on(row, "proposed")
        if memory is not None:
            self._change(row, "proposed", "rejected", self.memories.decide, memory.id, False)

    def forget_row(self, row: int) -> None:
        """Forget the memory a row saved (it can be restored from the Memories tab)."""
        entry = self.conversation.entry(row)
        if entry.memory is not None and entry.status in ("remembered", "accepted"):
            before: MemoryRowStatus = "accepted" if entry.status == "accepted" else "remembered"
            self._change(row, before, "forgotten", self.memories.forget, entry.memory.id)

    def _memory_on(self, row: int, status: MemoryRowStatus) -> Memory | None:
        entry = self.conversation.entry(row)
        return entry.memory if entry.kind == "memory" and entry.status == status else None

    def _change(
        self,
        row: int,
        before: MemoryRowStatus,
        after: MemoryRowStatus,
        function: Callable[..., Memory],
        *args: object,
    ) -> None:
        memory_id = self.conversation.entry(row).memory.id  # type: ignore[union-attr]
        self.conversation.set_memory(row, "working")

        def done(memory: Memory) -> None:
            if (current := self.conversation.memory_row(memory_id)) is not None:
                self.conversation.set_memory(current, after, memory)
            self.changed.emit(memory)

        def failed(error: BaseException) -> None:
            if (current := self.conversation.memory_row(memory_id)) is not None:
                self.conversation.set_memory(current, before)
            self._report(error)

        self.bridge.call(function, *args, on_result=done, on_error=failed)

    # --- "Remember this" ----------------------------------------------------------------------------

    def remember_message(
        self, message_id: int, text: str, on_saved: Callable[[], None] | None = None
    ) -> None:
        """Save ``text`` (the user's choice of words) as a memory taken from message ``message_id``;
        the saved memory shows as a row under that message."""
        memories, message = self.memories, self._message

        def save() -> WriteOutcome:
            return memories.remember(text, message(message_id))

        def done(outcome: WriteOutcome) -> None:
            self.conversation.add_memory(outcome, after_message=message_id)
            if outcome.warnings:
                self.error.emit(
                    f"Saved, but note: {'; '.join(outcome.warnings)}. Forget it if that was a mistake."
                )
            if outcome.memory is not None:
                self.changed.emit(outcome.memory)
            if on_saved is not None:
                on_saved()

        self.bridge.call(save, on_result=done, on_error=self._report)

    def remember_typed(self, text: str) -> None:
        """``/remember TEXT``: save the user's own words as a memory at once, shown as a row at the
        end of the transcript (the message box is not sent to the model)."""
        memories = self.memories

        def done(outcome: WriteOutcome) -> None:
            if outcome.memory is None:
                why = outcome.reason or "; ".join(outcome.warnings) or "the memories refused it"
                self.error.emit(f"Nothing was remembered: {why}.")
                return
            self.conversation.add_memory(outcome)
            if outcome.warnings:
                self.error.emit(f"Saved because you typed it, but note: {'; '.join(outcome.warnings)}.")
            self.changed.emit(outcome.memory)

        self.bridge.call(memories.remember, text, on_result=done, on_error=self._report)

    # --- View Context's actions on a recalled memory -------------------------------------------------

    def edit(self, memory_id: str, text: str, on_done: Callable[[Memory], None]) -> None:
        self._act(self.memories.edit, (memory_id, text), on_done)

    def pin(self, memory_id: str, pinned: bool, on_done: Callable[[Memory], None]) -> None:
        self._act(self.memories.pin, (memory_id, pinned), on_done)

    def forget(self, memory_id: str, on_done: Callable[[Memory], None]) -> None:
        self._act(self.memories.forget, (memory_id,), on_done)

    def set_used_in_chat(self, memory_id: str, used: bool, on_done: Callable[[], None]) -> None:
        """ "Not for this chat" (``used`` False): never recalled in this chat again; True undoes it."""
        change = self._readmit if used else self._leave_out
        self.bridge.call(
            change, ItemRef("memory", memory_id), on_result=lambda _: on_done(), on_error=self._report
        )

    def _act(
        self, function: Callable[..., Memory], args: tuple[object, ...], on_done: Callable[[Memory], None]
    ) -> None:
        def done(memory: Memory) -> None:
            if (row := self.conversation.memory_row(memory.id)) is not None:
                self.conversation.set_memory_words(row, memory)
            self.changed.emit(memory)
            on_done(memory)

        self.bridge.call(function, *args, on_result=done, on_error=self._report)

    def _report(self, error: BaseException) -> None:
        self.error.emit(str(error) if isinstance(error, ContextDeskError) else repr(error))
