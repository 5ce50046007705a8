"""One chat: the entry points that answer a message (send, regenerate, edit and resend, answer
again for What-if's Resend, what-if).

Its record and settings, items and compaction are the bases ``chat_record``, ``chat_items`` and
``history_edits``. The steps live in their own modules: ``context_builder`` decides what enters a request,
``reply_loop`` streams the model's turns, ``tool_calls`` and ``approvals`` run tools with the
user's permission, ``compacting`` summarizes old turns, ``what_if`` replays a request with other
settings. ``send`` stores the user's message before anything else, so nothing typed is lost.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncGenerator, Iterable, Mapping
from contextlib import aclosing
from typing import Any

from agent_core.agent.agent import Agent
from agent_core.chat.branches import versions_of
from agent_core.chat.chat_items import ChatItems
from agent_core.chat.chat_settings import ChatSettings
from agent_core.chat.context_builder import build_request_context
from agent_core.chat.events import (
    ChatEvent,
    Compacted,
    ContextBuilt,
    ItemPulled,
    MemoriesWritten,
    MessagesReplaced,
    UserMessageSaved,
)
from agent_core.chat.history import last_user_text, title_from
from agent_core.chat.history_edits import HistoryEdits
from agent_core.chat.item_kinds import keeps_pulled, sent_history, still_loaded
from agent_core.chat.reply_loop import ReplyLoop, ReplyRequest
from agent_core.chat.sampling_answers import ChatSampling
from agent_core.chat.services import ChatServices
from agent_core.chat.tool_calls import ToolCaller
from agent_core.chat.tool_handlers import MessageCommand, MessageTurn, ToolHandler
from agent_core.chat.what_if import what_if
from agent_core.context.items import ItemRef, RequestContext, SessionItem
from agent_core.context.session_context import initial_session_items, mentioned_items
from agent_core.context.sources import ContextRequest
from agent_core.errors import ContextDeskError
from agent_core.memory.book import WriteOutcome
from agent_core.memory.chat_extraction import MemoryWrites
from agent_core.memory.chat_memories import ChatMemories
from agent_core.store.chats import ChatStore, StoredMessage, StoredSession

logger = logging.getLogger(__name__)

__all__ = ["ChatSession"]

# "/ref NAME rest of the message" uses reference NAME for this message only.
REF_COMMAND = re.compile(r"^/ref\s+([A-Za-z0-9][A-Za-z0-9_-]{0,79})(?:\s|$)")


class ChatSession(ChatItems, HistoryEdits):
    """A chat with an agent. Create with :meth:`create` or :meth:`open`.

    Its record and settings (``chat_record``), items (``chat_items``) and compaction
    (``history_edits``) are the bases it is built on; this class answers messages.
    """

    def __init__(
        self,
        agent: Agent,
        store: ChatStore,
        record: StoredSession,
        services: ChatServices,
    ) -> None:
        super().__init__(agent, store, record, services)
        # The tool servers this chat runs itself (sub-agents, workflows), by server name.
        self.tool_handlers: dict[str, ToolHandler] = {}
        for make in services.tool_handlers:
            handler = make(self)
            self.tool_handlers[handler.server] = handler
        # Tool servers the user let have model replies without asking, for the rest of this chat.
        self.sampling_allowed: set[str] = set()
        self._task: asyncio.Task[Any] | None = None
        self.memories = ChatMemories(
            services.memories,
            lambda: self.agent,
            lambda: self.settings.memory,
            record.id,
            excluded=lambda: self._record.excluded_items,
            resolve_provider=services.resolve_provider,
        )

    # --- life cycle ---------------------------------------------------------------------------

    @classmethod
    def create(cls, agent: Agent, store: ChatStore, services: ChatServices) -> ChatSession:
        """A new chat holding the agent's ``always`` items."""
        record = store.create_session(
            agent_path=str(agent.root), context_items=initial_session_items(agent, services.tools.tools())
        )
        return cls(agent, store, record, services)

    @classmethod
    def open(cls, agent: Agent, store: ChatStore, session_id: str, services: ChatServices) -> ChatSession:
        """A saved chat, with its items and history.

        Raises:
            ContextDeskError: no chat has that id.
        """
        record = store.session(session_id)
        if record is None:
            raise ContextDeskError(
                f"no saved chat has the id {session_id}: list them with `contextdesk sessions list`"
            )
        return cls(agent, store, record, services)

    async def send(self, text: str) -> AsyncGenerator[ChatEvent, None]:
        """Answer ``text``, yielding events as it goes, up to and including a ReplyFinished.
        A command typed as the message (``/run NAME {json}``: ``services.commands``) is answered
        by its feature instead.

        With ``memory.extraction: model`` and a capable model, the model is asked for memories in
        the user's message at the same time as the reply: that never delays the reply, and its
        MemoriesWritten comes after the ReplyFinished (at most the extraction's timeout later).
        Cancelling the reply cancels it. Other memory writes come before the reply.

        Raises:
            ContextDeskError: ``/ref NAME`` names no reference, or ``/run NAME`` no workflow
                (nothing is saved or sent).
            AgentFileError: the agent's agent.yaml could not be read (nothing is saved or sent).
            UserDataError: the message could not be saved (nothing was sent to the model).
        """
        self.agent.refuse_unreadable_config()
        self._task = asyncio.current_task()
        command = self._command(text)
        if command is not None:
            async with aclosing(command.run(self, text)) as ran:
                async for event in ran:
                    yield event
            return
        one_turn = self._one_turn_reference(text)
        await self._refresh_attached_resources()
        history = self.store.messages(self.id, with_contexts=False, current_only=True)
        user_message = self.store.add_message(self.id, "user", text)
        if not self._record.title:
            self.rename(title_from(text))
        yield UserMessageSaved(user_message)
        answer = self._answer(text, history, user_message.id, one_turn)
        previous = last_user_text(history)
        extraction = self.memories.extract_around(
            text, user_message.id, previous, self.chat_settings.model, answer
        )
        async with aclosing(extraction) as steps:
            async for step in steps:
                if isinstance(step, MemoryWrites):
                    # A memory saved from this message is in its reply's context (or the next's).
                    self.memories.saved_here(outcome.memory for outcome in step.outcomes)
                    yield MemoriesWritten(step.outcomes, step.notes)
                else:
                    yield step

    async def regenerate(self) -> AsyncGenerator[ChatEvent, None]:
        """Answer the last message again (Retry after an error, Regenerate on a reply): the
        answers it had are kept, marked replaced, and the new reply has its own RequestContext.

        Raises:
            ContextDeskError: there is no message to answer again, or it was a ``/run``.
        """
        self.agent.refuse_unreadable_config()
        self._task = asyncio.current_task()
        current = self.store.messages(self.id, with_contexts=False, current_only=True)
        last_user = next((m for m in reversed(current) if m.role == "user"), None)
        if last_user is None:
            raise ContextDeskError("nothing to answer again: send a message first")
        command = self._command(last_user.content)
        if command is not None:
            raise ContextDeskError(command.not_regenerated)
        after = [m for m in current if m.id > last_user.id and m.role != "summary"]
        if after:
            self.store.replace_from(after[0])
            yield MessagesReplaced(after[0].id)
        history = [m for m in current if m.id < last_user.id]
        one_turn = self._one_turn_reference(last_user.content)
        async with aclosing(self._answer(last_user.content, history, last_user.id, one_turn)) as answer:
            async for event in answer:
                yield event

    async def edit_and_resend(self, message_id: int, text: str) -> AsyncGenerator[ChatEvent, None]:
        """Send ``text`` in place of the user's message ``message_id``: it and what followed are
        kept as a branch set aside (the user can switch back to it, see
        :meth:`~agent_core.chat.history_edits.HistoryEdits.show_version`), and ``text`` is
        answered as the message's next version.

        Raises:
            ContextDeskError: ``message_id`` is not a current message of the user in this chat.
        """
        messages = self.store.messages(self.id, with_contexts=False)
        original = next((m for m in messages if m.id == message_id and not m.replaced), None)
        if original is None or original.role != "user":
            raise ContextDeskError("only a message of yours that is still in the conversation can be edited")
        group = versions_of(messages).get(original.id)
        self.store.set_aside_from(original)
        yield MessagesReplaced(original.id, group.ids if group is not None else (original.id,))
        async with aclosing(self.send(text)) as sent:
            async for event in sent:
                yield event

    async def answer_again(self, message_id: int, text: str) -> AsyncGenerator[ChatEvent, None]:
        """Answer the user's message ``message_id`` again as ``text`` (What-if's Resend), without
        repeating it: the last message with its words unchanged is regenerated; otherwise ``text``
        becomes its next version (:meth:`edit_and_resend`).

        Raises:
            ContextDeskError: ``message_id`` is not a current message of the user in this chat.
        """
        current = self.store.messages(self.id, with_contexts=False, current_only=True)
        last_user = next((m for m in reversed(current) if m.role == "user"), None)
        unchanged = last_user is not None and last_user.id == message_id and last_user.content == text
        again = self.regenerate() if unchanged else self.edit_and_resend(message_id, text)
        async with aclosing(again) as answer:
            async for event in answer:
                yield event

    async def _answer(
        self, text: str, history: list[StoredMessage], user_message_id: int, one_turn: ItemRef | None
    ) -> AsyncGenerator[ChatEvent, None]:
        """The request context for ``text`` and the model's reply to it."""
        mentioned, _unknown = mentioned_items(text, self.agent)
        for ref in mentioned:
            self.add_item(ref)
        settings = self.settings
        tool_calling = self.tool_calling(settings.chat.model)
        turn = MessageTurn(text, routed=tool_calling == "routed")
        chat_items = still_loaded(self.items, history)  # a compaction unloads the pulls it covers
        if one_turn is not None and all(item.ref != one_turn for item in chat_items):
            chat_items = (*chat_items, SessionItem(one_turn, "manual"))
        request = ContextRequest(
            agent=self.agent,
            message=text,
            previous_message=last_user_text(history),
            chat_items=chat_items,
            tools=self.services.tools.tools(),
        )
        built = await build_request_context(
            request,
            selector=self.services.selector,
            selection=settings.selection,
            model_ref=settings.chat.model,
            tool_calling=tool_calling,
            memories=self.memories,
        )
        yield ContextBuilt(built.context)

        reply = ReplyRequest(
            text=text,
            history=sent_history(self.agent, history, chat_items),
            context=built.context,
            tools=built.tools,
            user_message_id=user_message_id,
            routed=tool_calling == "routed",
            memory_texts=built.memory_texts,
        )
        async for event in self._reply_loop(settings, turn).run(reply):
            if isinstance(event, Compacted):
                self.unload_compacted(event.message)  # compacted before this reply's first turn
            if isinstance(event, ItemPulled):
                if keeps_pulled(event.ref):
                    self.keep_pulled_item(event.ref, user_message_id)
                if all(item.ref != event.ref for item in built.context.items):
                    self._remember_correction(event.ref, text, added=True)  # what selection missed
            yield event

    async def remember(self, text: str) -> WriteOutcome:
        """``/remember TEXT``: save the user's own words as a memory of this agent, at once.

        Raises:
            ContextDeskError: memories are off for this chat, or the text is not a valid memory.
        """
        return await asyncio.to_thread(self.memories.remember, text)

    async def decide_memory(self, memory_id: str, accept: bool) -> None:
        """Accept or reject a proposed memory (from this chat's Accept / Reject)."""
        await asyncio.to_thread(self.memories.decide, memory_id, accept)

    def memory_texts(self, context: RequestContext) -> dict[str, str]:
        """The words of the memories ``context`` recalled or left out, as they read now (a few
        key lookups: quick enough for a dialog to call). Missing ones were forgotten or deleted."""
        return self.memories.context_texts(context)

    def _reply_loop(self, settings: ChatSettings, turn: MessageTurn) -> ReplyLoop:
        caller = ToolCaller(
            tools=self.services.tools,
            policy=settings.chat.tool_permission,
            allowed_for_chat=lambda: self.allowed_tools,
            allow_for_chat=self.allow_tool_for_chat,
            handlers=self.tool_handlers,
            turn=turn,
            agent=self.agent,
            router=self.services.sampling,
            sampling=ChatSampling(
                self.models,
                settings.chat,
                self.agent.config.mcp_servers,
                self.sampling_allowed,
                agent_models=self.agent_models(),
            ),
        )
        return ReplyLoop(
            agent=self.agent,
            store=self.store,
            session_id=self.id,
            models=self.models,
            settings=settings,
            streamer=self.services.streamer,
            tool_caller=caller,
            attached=self.attached_resources,
            overflow_fixes=self.services.overflow_fixes,
        )

    def agent_models(self) -> tuple[str, ...]:
        """The provider:model refs this chat's agent names (its chat's and its sub-agents')."""
        refs = [self.agent.config.chat.model]
        refs += [s.model for s in self.agent.subagents.values() if ":" in s.model]
        return tuple(dict.fromkeys(refs))

    def cancel(self) -> None:
        """Stop the reply in progress; what was received so far is kept, marked cancelled."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

    def cancel_tool_call(self, call_id: str) -> bool:
        """Stop one running call of a tool the chat runs itself (a sub-agent) while the reply goes
        on; False when no such call is running. Call on the event loop's thread."""
        return any(handler.cancel(call_id) for handler in self.tool_handlers.values())

    def _command(self, text: str) -> MessageCommand | None:
        return next((command for command in self.services.commands if command.matches(text)), None)

    async def close(self) -> None:
        """Stop the reply in progress and, once it has saved its last state, let other programs
        write to this chat."""
        task = self._task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()
            await asyncio.wait([task])
        await asyncio.to_thread(self.store.release_lease, self.id)

    async def what_if(
        self,
        reply: StoredMessage,
        *,
        selection: Mapping[str, Any] | None = None,
        include: Iterable[ItemRef] = (),
        exclude: Iterable[ItemRef] = (),
    ) -> RequestContext:
        """The RequestContext the message answered by ``reply`` would get with other selection
        settings (snake_case SelectionConfig fields) or items toggled. Nothing is sent or saved.

        Raises:
            ContextDeskError: ``reply`` has no RequestContext or no message before it.
        """
        return await what_if(
            self, self.memories, reply, selection=selection, include=include, exclude=exclude
        )

    def _one_turn_reference(self, text: str) -> ItemRef | None:
        """The reference named by a leading ``/ref NAME``, used for this message only.

        Raises:
            ContextDeskError: no reference has that name (nothing is saved or sent).
        """
        match = REF_COMMAND.match(text)
        if match is None:
            return None
        name = match.group(1)
        if self.agent.document("reference", name) is None:
            known = ", ".join(sorted(self.agent.references)) or "none"
            raise ContextDeskError(
                f"/ref: this agent has no reference named '{name}' (its references: {known})"
            )
        return ItemRef("reference", name)
