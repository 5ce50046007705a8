"""Changes to a chat's history that are not messages: compaction (``/compact``, which also takes
out the items the model pulled in and kept for the turns it summarized: loaded skills) and its
undo (which keeps them again), a summary's edit, the version of an edited message the chat shows
(its branch), and what the next request would cost once the history changed."""

from __future__ import annotations

from agent_core.budget.compaction import plan_compaction
from agent_core.budget.estimates import estimate_next_request
from agent_core.chat.branches import switch_target
from agent_core.chat.chat_record import ChatRecord
from agent_core.chat.chat_settings import prompt_limits
from agent_core.chat.compacting import compact_chat
from agent_core.chat.history import split_at_summary
from agent_core.chat.item_kinds import kept_pulls, unloaded
from agent_core.chat.prompt import history_messages
from agent_core.context.items import ContextManifest, SessionItem
from agent_core.errors import ContextDeskError
from agent_core.store.chats import StoredMessage

__all__ = ["HistoryEdits"]


class HistoryEdits(ChatRecord):
    """Compaction and summaries of one chat."""

    async def compact(self) -> StoredMessage | None:
        """Summarize older turns now (``/compact``); None when there is too little to compact.

        Raises:
            ProviderError: the model could not write the summary (the chat is unchanged).
        """
        settings = self.settings
        model = self.models.resolve(settings.chat.model)
        note = await compact_chat(self.store, self.id, model, settings, prompt_limits(model, settings))
        if note is not None:
            self.unload_compacted(note)
        return note

    def has_turns_to_compact(self) -> bool:
        """Whether ``/compact`` would summarize anything now: turns older than those always kept."""
        messages = self.store.messages(self.id, with_contexts=False, current_only=True)
        recent, _summary = split_at_summary(messages)
        return plan_compaction(recent, self.settings.context.keep_recent_turns) is not None

    def unload_compacted(self, summary: StoredMessage) -> None:
        """Take out of the chat the items the model pulled in and kept (loaded skills) for
        messages ``summary`` now stands for."""
        kept = unloaded(self._record.context_items, summary.covers_until)
        if kept != self._record.context_items:
            self._save_record(context_items=kept)

    def undo_compaction(self, summary: StoredMessage) -> None:
        """Take back a compaction: the summary goes and the turns it covered are sent again, with
        what they pulled in and kept (a skill the model loaded) back in the chat, unless the user
        has removed it since.

        Raises:
            ContextDeskError: ``summary`` is not a compaction summary of this chat.
        """
        if summary.session_id != self.id:
            raise ContextDeskError("that summary belongs to another chat")
        self.store.delete_summary(summary)
        self._keep_pulls_again(summary)

    def _keep_pulls_again(self, undone: StoredMessage) -> None:
        """Keep again what the turns the ``undone`` compaction covered pulled in and kept."""
        if undone.covers_until is None:
            return
        history = self.store.messages(self.id, with_contexts=False, current_only=True)
        covered = max(
            (m.covers_until for m in history if m.role == "summary" and m.covers_until is not None), default=0
        )
        held = {item.ref for item in self._record.context_items} | set(self._record.excluded_items)
        again = tuple(
            SessionItem(ref, "manual", loaded_at=message_id)
            for ref, message_id in kept_pulls(self.agent, history).items()
            if covered < message_id <= undone.covers_until and ref not in held
        )
        if again:
            self._save_record(context_items=(*self._record.context_items, *again))

    def show_version(self, message_id: int, step: int) -> StoredMessage:
        """Show the version ``step`` places (-1: the one before, +1: the one after) from the
        shown user message ``message_id``, with the replies that followed it as they were left;
        the branch shown until now is set aside, whole, in the same transaction. Returns the
        version now shown.

        Raises:
            ContextDeskError: there is no such version, or a compaction summary stands for it.
            StoreError: the database could not be written (nothing changed).
        """
        shown, wanted = switch_target(self.store.messages(self.id, with_contexts=False), message_id, step)
        self.store.switch_branch(shown, wanted)
        return wanted

    def estimate_next_request(self, last: ContextManifest) -> ContextManifest:
        """What the next request would cost now that the history changed (after a reply, a
        compaction or its undo): ``last``'s other parts with the chat's summary as it is now and
        its history trimmed as the request will trim it."""
        model = self.models.resolve(self.settings.chat.model)
        recent, summary = split_at_summary(
            self.store.messages(self.id, with_contexts=False, current_only=True)
        )
        return estimate_next_request(
            last,
            history=history_messages(recent),
            summary_tokens=model.counter.count(summary.content) if summary is not None else 0,
            counter=model.counter,
            limits=prompt_limits(model, self.settings).fit,
        )

    def edit_summary(self, message: StoredMessage, text: str) -> StoredMessage:
        """Replace a compaction note's text with the user's edit.

        Raises:
            ContextDeskError: ``message`` is not a summary.
        """
        if message.role != "summary":
            raise ContextDeskError("only a conversation summary can be edited this way")
        return self.store.update_message(message, content=text)
