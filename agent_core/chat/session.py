"""One chat: its record (items, settings, history) and the entry points that act on it.

The steps live in their own modules: ``context_builder`` decides what enters a request,
``reply_loop`` streams the model's turns, ``tool_calls`` and ``approvals`` run tools with the
user's permission, ``compacting`` summarizes old turns, ``what_if`` replays a request with other
settings. ``send`` stores the user's message before anything else, so nothing typed is lost.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncGenerator, Callable, Collection, Iterable, Mapping
from contextlib import aclosing
from dataclasses import replace
from typing import Any

from agent_core.agent.agent import Agent
from agent_core.agent.items import DocumentItem
from agent_core.agent.schema import ChatDefaults, ContextConfig, IncludeMode, SelectionConfig
from agent_core.budget.estimates import estimate_next_request
from agent_core.chat.attached_updates import refreshed
from agent_core.chat.chat_settings import ChatSettings, prompt_limits, with_overrides
from agent_core.chat.compacting import compact_chat
from agent_core.chat.context_builder import build_request_context
from agent_core.chat.events import (
    ChatEvent,
    ContextBuilt,
    ItemPulled,
    MemoriesWritten,
    MessagesReplaced,
    UserMessageSaved,
)
from agent_core.chat.history import last_user_text, split_at_summary, title_from
from agent_core.chat.prompt import history_messages
from agent_core.chat.reply_loop import ReplyLoop, ReplyRequest
from agent_core.chat.resolved_model import ModelResolver
from agent_core.chat.run_command import run_workflow_command
from agent_core.chat.sampling_answers import ChatSampling
from agent_core.chat.services import ChatServices
from agent_core.chat.tool_calls import ToolCaller
from agent_core.chat.what_if import what_if
from agent_core.context.items import ContextManifest, ItemRef, RequestContext, SessionItem
from agent_core.context.session_context import effective_session_items, initial_session_items, mentioned_items
from agent_core.context.sources import ContextRequest
from agent_core.errors import ContextDeskError
from agent_core.memory.book import WriteOutcome
from agent_core.memory.chat_extraction import MemoryWrites
from agent_core.memory.chat_memories import ChatMemories
from agent_core.providers.base import ToolCalling
from agent_core.store.chat_state import AttachedResource
from agent_core.store.chats import ChatStore, StoredMessage, StoredSession
from agent_core.store.sent_requests import SentRequest
from agent_core.subagents.runner import Delegator, Nesting
from agent_core.workflows.chat_runs import ChatWorkflows, parse_run_command

logger = logging.getLogger(__name__)

__all__ = ["ChatSession"]

# "/ref NAME rest of the message" uses reference NAME for this message only.
REF_COMMAND = re.compile(r"^/ref\s+([A-Za-z0-9][A-Za-z0-9_-]{0,79})(?:\s|$)")


class ChatSession:
    """A chat with an agent. Create with :meth:`create` or :meth:`open`."""

    def __init__(
        self,
        agent: Agent,
        store: ChatStore,
        record: StoredSession,
        services: ChatServices,
        *,
        nesting: Nesting | None = None,
    ) -> None:
        """``nesting``: where a sub-agent's chat sits under the user's chat (None: it is one)."""
        self.agent = agent
        self.store = store
        self.services = services
        self.delegator = Delegator(self, nesting or Nesting())
        self.workflows = ChatWorkflows(self)
        # Tools allowed without asking because a parent chat allowed them (approvals: inherit).
        self.inherited_allowed: Callable[[], Collection[ItemRef]] = tuple
        self.models = ModelResolver(services.resolve_provider)
        # Tool servers the user let have model replies without asking, for the rest of this chat.
        self.sampling_allowed: set[str] = set()
        self._record = record
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

    @property
    def id(self) -> str:
        return self._record.id

    @property
    def title(self) -> str:
        return self._record.title

    def rename(self, title: str) -> None:
        self._save_record(title=title)

    def history(self) -> list[StoredMessage]:
        return self.store.messages(self.id)

    def last_request_context(self) -> RequestContext | None:
        for message in reversed(self.history()):
            if message.request_context is not None:
                return message.request_context
        return None

    def sent_request(self, message_id: int) -> SentRequest | None:
        """The exact request the reply ``message_id`` sent (credentials masked); None when none
        was kept: replies saved before ContextDesk kept them, and replies that never reached a model.

        Raises:
            StoreError: the database could not be read.
        """
        return self.store.sent_request(message_id)

    def _save_record(self, **changes: Any) -> None:
        self.store.update_session(self.id, **changes)
        self._record = replace(self._record, **changes)

    # --- settings -----------------------------------------------------------------------------

    @property
    def settings(self) -> ChatSettings:
        """The agent's settings with this chat's overrides applied."""
        return ChatSettings.of(self.agent.config, self._record.overrides)

    @property
    def chat_settings(self) -> ChatDefaults:
        return self.settings.chat

    @property
    def selection_settings(self) -> SelectionConfig:
        return self.settings.selection

    @property
    def context_settings(self) -> ContextConfig:
        """Context-window limits: the agent's, with this chat's overrides."""
        return self.settings.context

    def override_settings(
        self,
        *,
        chat: Mapping[str, Any] | None = None,
        selection: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
        memory: Mapping[str, Any] | None = None,
    ) -> None:
        """Change settings for this chat only (snake_case field names).

        Raises:
            pydantic.ValidationError: a value is out of range (nothing is changed).
        """
        overrides = with_overrides(
            self.agent.config,
            self._record.overrides,
            chat=chat,
            selection=selection,
            context=context,
            memory=memory,
        )
        self._save_record(overrides=overrides)

    def tool_calling(self, model_ref: str | None = None) -> ToolCalling:
        """How ``model_ref`` (default: the chat's model) uses tools; "native" when its provider
        cannot be set up, since the reply then reports that problem itself."""
        try:
            return self.models.resolve(model_ref or self.chat_settings.model).tool_calling
        except ContextDeskError:
            return "native"

    # --- context items ------------------------------------------------------------------------

    @property
    def items(self) -> tuple[SessionItem, ...]:
        """The items every message of this chat uses (always and manual)."""
        return effective_session_items(
            self._record.context_items,
            self._record.excluded_items,
            self.agent,
            self.services.tools.tools(),
            self.attached_resources(),
        )

    def attached_resources(self) -> dict[ItemRef, DocumentItem]:
        """MCP resources attached to this chat as references, as they last read."""
        return {
            resource.ref: DocumentItem(
                kind="reference",
                name=resource.uri,
                description=_attached_description(resource),
                text=resource.text,
            )
            for resource in self._record.attached_resources
        }

    def attach_resource(
        self, server: str, uri: str, text: str, title: str = "", seen_version: int | None = None
    ) -> ItemRef:
        """Attach an MCP resource's text to the chat as a reference (kept as read now);
        ``seen_version``: the server's update count when subscribed (see ``attached_updates``)."""
        resource = AttachedResource(server=server, uri=uri, text=text, title=title, seen_version=seen_version)
        others = tuple(r for r in self._record.attached_resources if r.ref != resource.ref)
        self._save_record(attached_resources=(*others, resource))
        self.add_item(resource.ref)
        return resource.ref

    async def _refresh_attached_resources(self) -> None:
        """Read again the attached resources their servers said changed (before the context is built)."""
        resources = self._record.attached_resources
        if resources and (updated := await refreshed(self.services.tools, resources)) is not None:
            self._save_record(attached_resources=updated)

    def add_item(self, ref: ItemRef, *, learn: bool = False) -> None:
        """Add an item to the chat (as ``manual``), whatever its include mode. ``learn``: the
        user added it by hand, so selection learns that the last message needed it."""
        if learn:
            self._learn(ref, added=True)
        if any(item.ref == ref for item in self.items):
            return
        items = (*(i for i in self._record.context_items if i.ref != ref), SessionItem(ref, "manual"))
        excluded = tuple(r for r in self._record.excluded_items if r != ref)
        self._save_record(context_items=items, excluded_items=excluded)

    def pin_item(self, ref: ItemRef, pinned: bool = True) -> None:
        """Pin an item: it stays in the chat, in full, whatever trimming or compaction does (an
        item not yet in the chat is added)."""
        self.add_item(ref)
        stored = list(self._record.context_items)
        if all(item.ref != ref for item in stored):
            stored.append(SessionItem(ref, "always"))  # an always-mode tool that joined by itself
        items = tuple(replace(item, pinned=pinned) if item.ref == ref else item for item in stored)
        self._save_record(context_items=items)

    def remove_item(self, ref: ItemRef, *, learn: bool = False) -> None:
        """Take an item out of the chat. ``learn``: the user removed it by hand, so selection
        learns that the last message did not need it."""
        if learn:
            self._learn(ref, added=False)
        items = tuple(i for i in self._record.context_items if i.ref != ref)
        excluded = self._record.excluded_items
        self._save_record(
            context_items=items, excluded_items=excluded if ref in excluded else (*excluded, ref)
        )

    def _learn(self, ref: ItemRef, *, added: bool) -> None:
        """Keep the user's correction of the last reply's selection: an agent-mode item added
        that it did not select, or removed that it did. Anything else teaches nothing."""
        if not self._agent_mode(ref):
            return
        history = self.store.messages(self.id, current_only=True)
        context = next((m.request_context for m in reversed(history) if m.request_context), None)
        if context is None:
            return
        selected = any(i.ref == ref and i.include_mode == "agent" for i in context.items)
        if selected == added:
            return  # adding what it chose, or removing what it did not: no correction
        message = next((m.content for m in reversed(history) if m.role == "user"), "")
        if message.strip():
            self._remember_correction(ref, message, added=added)

    def _remember_correction(self, ref: ItemRef, message: str, *, added: bool) -> None:
        selector = self.services.selector
        if selector is None or selector.learned is None:
            return
        try:
            selector.learned.record(str(self.agent.root), ref, message, added=added, session_id=self.id)
        except ContextDeskError as error:
            logger.warning("could not keep what selection learned: %s", error)

    def _agent_mode(self, ref: ItemRef) -> bool:
        if ref.type == "tool":
            return any(
                t.server == ref.server and t.name == ref.name and t.include is IncludeMode.AGENT
                for t in self.services.tools.tools()
            )
        if ref.type in ("rule", "reference") and ref.server is None:
            document = self.agent.document(ref.type, ref.name)
            return document is not None and document.include is IncludeMode.AGENT
        return False

    def readmit(self, ref: ItemRef) -> None:
        """Undo leaving ``ref`` out of this chat (e.g. a memory marked "not for this chat")."""
        self._save_record(excluded_items=tuple(r for r in self._record.excluded_items if r != ref))

    @property
    def allowed_tools(self) -> tuple[ItemRef, ...]:
        """Tools the user allowed for the rest of this chat, and those a parent chat's allow
        reaches (a sub-agent with ``approvals: inherit``)."""
        return (*self._record.allowed_tools, *self.inherited_allowed())

    def allow_tool_for_chat(self, tool: ItemRef) -> None:
        """Run ``tool`` without asking for the rest of this chat."""
        if tool not in self._record.allowed_tools:
            self._save_record(allowed_tools=(*self._record.allowed_tools, tool))

    # --- answering ----------------------------------------------------------------------------

    async def send(self, text: str) -> AsyncGenerator[ChatEvent, None]:
        """Answer ``text``, yielding events as it goes, up to and including a ReplyFinished.
        ``/run NAME {json}`` runs one of the agent's workflows instead (``run_command``).

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
        command = parse_run_command(text)
        if command is not None:
            async with aclosing(run_workflow_command(self, text, *command)) as ran:
                async for event in ran:
                    yield event
            return
        one_turn = self._one_turn_reference(text)
        await self._refresh_attached_resources()
        history = self.store.messages(self.id, with_contexts=False, current_only=True)
        user_message = self.store.add_message(self.id, "user", text)
        self.delegator.user_text = self.workflows.user_text = text
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
                yield MemoriesWritten(step.outcomes, step.notes) if isinstance(step, MemoryWrites) else step

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
        if parse_run_command(last_user.content) is not None:
            raise ContextDeskError("a /run is not regenerated: send the /run again to run the workflow again")
        after = [m for m in current if m.id > last_user.id and m.role != "summary"]
        if after:
            self.store.replace_from(after[0])
            yield MessagesReplaced(after[0].id)
        history = [m for m in current if m.id < last_user.id]
        self.delegator.user_text = self.workflows.user_text = last_user.content
        one_turn = self._one_turn_reference(last_user.content)
        async with aclosing(self._answer(last_user.content, history, last_user.id, one_turn)) as answer:
            async for event in answer:
                yield event

    async def edit_and_resend(self, message_id: int, text: str) -> AsyncGenerator[ChatEvent, None]:
        """Send ``text`` in place of the user's message ``message_id``: it and what followed are
        kept, marked replaced (a branch the user can still read), and ``text`` is answered.

        Raises:
            ContextDeskError: ``message_id`` is not a current message of the user in this chat.
        """
        original = next(
            (
                m
                for m in self.store.messages(self.id, with_contexts=False, current_only=True)
                if m.id == message_id
            ),
            None,
        )
        if original is None or original.role != "user":
            raise ContextDeskError("only a message of yours that is still in the conversation can be edited")
        self.store.replace_from(original)
        yield MessagesReplaced(original.id)
        async with aclosing(self.send(text)) as sent:
            async for event in sent:
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
        self.delegator.routed = self.workflows.routed = tool_calling == "routed"
        chat_items = self.items
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
            history=history,
            context=built.context,
            tools=built.tools,
            user_message_id=user_message_id,
            routed=tool_calling == "routed",
            memory_texts=built.memory_texts,
        )
        async for event in self._reply_loop(settings).run(reply):
            if isinstance(event, ItemPulled):
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

    def _reply_loop(self, settings: ChatSettings) -> ReplyLoop:
        caller = ToolCaller(
            tools=self.services.tools,
            policy=settings.chat.tool_permission,
            allowed_for_chat=lambda: self.allowed_tools,
            allow_for_chat=self.allow_tool_for_chat,
            delegator=self.delegator,
            workflows=self.workflows,
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

    async def close(self) -> None:
        """Stop the reply in progress and, once it has saved its last state, let other programs
        write to this chat."""
        task = self._task
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()
            await asyncio.wait([task])
        await asyncio.to_thread(self.store.release_lease, self.id)

    async def compact(self) -> StoredMessage | None:
        """Summarize older turns now (``/compact``); None when there is too little to compact.

        Raises:
            ProviderError: the model could not write the summary (the chat is unchanged).
        """
        settings = self.settings
        model = self.models.resolve(settings.chat.model)
        return await compact_chat(self.store, self.id, model, settings, prompt_limits(model, settings))

    def undo_compaction(self, summary: StoredMessage) -> None:
        """Take back a compaction: the summary goes and the turns it covered are sent again.

        Raises:
            ContextDeskError: ``summary`` is not a compaction summary of this chat.
        """
        if summary.session_id != self.id:
            raise ContextDeskError("that summary belongs to another chat")
        self.store.delete_summary(summary)

    def estimate_next_request(self, last: ContextManifest) -> ContextManifest:
        """What the next request would cost now that the history changed (after a compaction or
        its undo): ``last``'s other parts with the chat's history and summary as they are now."""
        model = self.models.resolve(self.settings.chat.model)
        recent, summary = split_at_summary(
            self.store.messages(self.id, with_contexts=False, current_only=True)
        )
        history = history_messages(recent)
        summary_tokens = model.counter.count(summary.content) if summary is not None else 0
        return estimate_next_request(
            last,
            history_tokens=model.counter.messages(history) if history else 0,
            history_messages=len(history),
            summary_tokens=summary_tokens,
        )

    def edit_summary(self, message: StoredMessage, text: str) -> StoredMessage:
        """Replace a compaction note's text with the user's edit.

        Raises:
            ContextDeskError: ``message`` is not a summary.
        """
        if message.role != "summary":
            raise ContextDeskError("only a conversation summary can be edited this way")
        return self.store.update_message(message, content=text)

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
        return await what_if(self, reply, selection=selection, include=include, exclude=exclude)

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


def _attached_description(resource: AttachedResource) -> str:
    """Its title, after whether the server changed it since it was attached (first: a narrow
    column still shows it)."""
    if not resource.updates:
        return resource.title
    times = "once" if resource.updates == 1 else f"{resource.updates} times"
    changed = f"Changed by the server {times} since attached"
    return f"{changed} · {resource.title}" if resource.title else changed
