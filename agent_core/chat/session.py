"""One chat: its context items, settings and history, and the loop that answers a message.

``send`` stores the user's message before anything else, builds the RequestContext, streams the
model's reply (saving it as it grows), runs tool calls with the user's permission, and stores
each assistant turn with the RequestContext it used. Whatever fails, the chat stays consistent.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agent_core.agent.agent import Agent
from agent_core.agent.items import DocumentItem
from agent_core.agent.schema import ChatDefaults, ContextConfig, SelectionConfig, ToolPermissionPolicy
from agent_core.budget.compaction import plan_compaction, summarize_conversation
from agent_core.budget.counting import TokenCounter, counter_for
from agent_core.budget.fitting import ContextOverflowError, Limits
from agent_core.budget.windows import window_for
from agent_core.chat.events import (
    ApprovalDecision,
    ApprovalRequest,
    ChatEvent,
    Compacted,
    ContextBuilt,
    ReplyDelta,
    ReplyFinished,
    RetryScheduled,
    ToolCallFinished,
    ToolCallStarted,
    TurnSaved,
    UserMessageSaved,
)
from agent_core.chat.prompt import Prompt, PromptLimits, ToolBinding, build_prompt, history_messages
from agent_core.chat.tool_routing import route_tool
from agent_core.chat.tool_runtime import NoTools, ToolDescriptor, ToolRuntime
from agent_core.context.items import (
    ItemRef,
    RequestContext,
    RequestItem,
    SelectionRun,
    SessionItem,
    TokenUsage,
)
from agent_core.context.selection import ContextSelector, SelectionOutcome
from agent_core.context.session_context import (
    agent_candidates,
    effective_session_items,
    initial_session_items,
    mentioned_items,
)
from agent_core.errors import ContextDeskError, ProviderError, UserDataError
from agent_core.providers.base import (
    ChatMessage,
    ChatRequest,
    FinishEvent,
    GenerationSettings,
    Provider,
    RetryEvent,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    ToolCalling,
    UsageEvent,
)
from agent_core.providers.retry import stream_with_retries
from agent_core.store.chats import Approval, ChatStore, StoredMessage, StoredSession, ToolCallRecord

__all__ = ["ChatServices", "ChatSession", "ProviderResolver"]

logger = logging.getLogger(__name__)

# (provider:model) -> (provider, model id within it). Raises ProviderError when it cannot.
ProviderResolver = Callable[[str], tuple[Provider, str]]
# How a request is streamed; tests pass stream_with_retries with a fake sleep.
Streamer = Callable[[Provider, ChatRequest], AsyncIterator[StreamEvent]]

SAVE_PARTIAL_EVERY_SECONDS = 0.5
# "/ref NAME rest of the message" uses reference NAME for this message only.
REF_COMMAND = re.compile(r"^/ref\s+([A-Za-z0-9][A-Za-z0-9_-]{0,79})(?:\s|$)")
TITLE_LENGTH = 60


@dataclass(frozen=True)
class ChatServices:
    """What a chat uses besides its agent and its store: models, selection, tools and streaming.
    One set is shared by every chat of a workspace."""

    resolve_provider: ProviderResolver
    selector: ContextSelector | None = None
    tools: ToolRuntime = field(default_factory=NoTools)
    streamer: Streamer = stream_with_retries


class ChatSession:
    """A chat with an agent. Create with :meth:`create` or :meth:`open`."""

    def __init__(self, agent: Agent, store: ChatStore, record: StoredSession, services: ChatServices) -> None:
        self.agent = agent
        self.store = store
        self._record = record
        self._streamer = services.streamer
        self._resolve_provider = services.resolve_provider
        self._selector = services.selector
        self._tools = services.tools
        self._task: asyncio.Task[Any] | None = None
        self._counters: dict[str, TokenCounter] = {}

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
        self.store.update_session(self.id, title=title)
        self._record = replace(self._record, title=title)

    def history(self) -> list[StoredMessage]:
        return self.store.messages(self.id)

    # --- settings -----------------------------------------------------------------------------

    @property
    def chat_settings(self) -> ChatDefaults:
        """The agent's chat defaults with this chat's overrides applied."""
        overrides = dict(self._record.chat_settings.get("chat", {}))
        return ChatDefaults.model_validate({**self.agent.config.chat.model_dump(), **overrides})

    def _counter(self, provider: Provider, model_id: str) -> TokenCounter:
        key = f"{provider.settings.provider_id}:{model_id}"
        if key not in self._counters:
            self._counters[key] = counter_for(provider, provider.settings.type, model_id)
        return self._counters[key]

    @property
    def context_settings(self) -> ContextConfig:
        """Context-window limits: the agent's, with this chat's overrides."""
        overrides = dict(self._record.chat_settings.get("context", {}))
        return ContextConfig.model_validate({**self.agent.config.context.model_dump(), **overrides})

    def context_limits(
        self, provider: Provider, model_id: str, settings: ChatDefaults | None = None
    ) -> PromptLimits:
        """The window, reply reserve and trimming limits a request to ``model_id`` must fit."""
        settings = settings or self.chat_settings
        config = self.context_settings
        chat_window = self._record.chat_settings.get("context", {}).get("window")
        window = window_for(
            model_id,
            chat_override=chat_window,
            agent_override=self.agent.config.context.window,
            provider_window=provider.context_window(model_id),
        )
        reserve = config.reply_reserve if config.reply_reserve is not None else settings.max_output_tokens
        budget = window.tokens - reserve
        # One result may never take more than a third of what the window leaves.
        max_result = max(64, min(config.max_tool_result_tokens, budget // 3))
        fit = Limits(window, reserve, config.keep_tool_rounds, max_result)
        return PromptLimits(
            fit=fit, max_reference_tokens=max(256, int(fit.budget * config.max_reference_share))
        )

    @property
    def selection_settings(self) -> SelectionConfig:
        overrides = dict(self._record.chat_settings.get("selection", {}))
        return SelectionConfig.model_validate({**self.agent.config.selection.model_dump(), **overrides})

    def override_settings(
        self,
        *,
        chat: Mapping[str, Any] | None = None,
        selection: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
    ) -> None:
        """Change settings for this chat only (snake_case field names).

        Raises:
            pydantic.ValidationError: a value is out of range.
        """
        current = dict(self._record.chat_settings)
        if chat:
            merged = {**current.get("chat", {}), **chat}
            ChatDefaults.model_validate({**self.agent.config.chat.model_dump(), **merged})
            current["chat"] = merged
        if context:
            merged = {**current.get("context", {}), **context}
            ContextConfig.model_validate({**self.agent.config.context.model_dump(), **merged})
            current["context"] = merged
        if selection:
            merged = {**current.get("selection", {}), **selection}
            SelectionConfig.model_validate({**self.agent.config.selection.model_dump(), **merged})
            current["selection"] = merged
        self._save_record(chat_settings=current)

    # --- context items ------------------------------------------------------------------------

    @property
    def items(self) -> tuple[SessionItem, ...]:
        """The items every message of this chat uses (always and manual)."""
        return effective_session_items(
            self._record.context_items,
            self._record.excluded_items,
            self.agent,
            self._tools.tools(),
            self.attached_resources(),
        )

    def attached_resources(self) -> dict[ItemRef, DocumentItem]:
        """MCP resources attached to this chat as references, as they read when attached."""
        stored = self._record.chat_settings.get("attachedResources", {})
        return {
            ItemRef("reference", entry["uri"], entry["server"]): DocumentItem(
                kind="reference", name=entry["uri"], description=entry.get("title", ""), text=entry["text"]
            )
            for entry in stored.values()
        }

    def attach_resource(self, server: str, uri: str, text: str, title: str = "") -> ItemRef:
        """Attach an MCP resource's text to the chat as a reference (kept as read now)."""
        current = dict(self._record.chat_settings)
        attached = dict(current.get("attachedResources", {}))
        attached[f"{server}|{uri}"] = {"server": server, "uri": uri, "title": title, "text": text}
        current["attachedResources"] = attached
        self._save_record(chat_settings=current)
        ref = ItemRef("reference", uri, server)
        self.add_item(ref)
        return ref

    def add_item(self, ref: ItemRef) -> None:
        """Add an item to the chat (as ``manual``), whatever its include mode."""
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

    def remove_item(self, ref: ItemRef) -> None:
        items = tuple(i for i in self._record.context_items if i.ref != ref)
        excluded = (
            self._record.excluded_items
            if ref in self._record.excluded_items
            else (*self._record.excluded_items, ref)
        )
        self._save_record(context_items=items, excluded_items=excluded)

    def _save_record(self, **changes: Any) -> None:
        self.store.update_session(self.id, **changes)
        self._record = replace(self._record, **changes)

    def last_request_context(self) -> RequestContext | None:
        for message in reversed(self.history()):
            if message.request_context is not None:
                return message.request_context
        return None

    # --- answering ----------------------------------------------------------------------------

    async def compact(self) -> StoredMessage | None:
        """Summarize older turns now (``/compact``); None when there is too little to compact.

        Raises:
            ProviderError: the model could not write the summary (the chat is unchanged).
        """
        settings = self.chat_settings
        provider, model_id = self._resolve_provider(settings.model)
        counter = self._counter(provider, model_id)
        limits = self.context_limits(provider, model_id, settings)
        return await self._compact(provider, model_id, counter, limits, settings, before_id=None)

    async def _compact(
        self,
        provider: Provider,
        model_id: str,
        counter: TokenCounter,
        limits: PromptLimits,
        settings: ChatDefaults,
        before_id: int | None,
    ) -> StoredMessage | None:
        messages = self.store.messages(self.id, with_contexts=False)
        if before_id is not None:
            messages = [m for m in messages if m.id < before_id]
        recent, previous = split_at_summary(messages)
        plan = plan_compaction(recent, self.context_settings.keep_recent_turns)
        if plan is None:
            return None
        note = await summarize_conversation(
            provider,
            model_id,
            plan.to_summarize,
            previous.content if previous else None,
            counter,
            limits.fit.budget,
            min(1024, settings.max_output_tokens),
        )
        return self.store.add_message(self.id, "summary", note, covers_until=plan.covers_until)

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
        if reply.request_context is None:
            raise ContextDeskError("this message has no recorded context to compare with")
        messages = self.store.messages(self.id, with_contexts=False)
        user = next((m for m in reversed(messages) if m.role == "user" and m.id < reply.id), None)
        if user is None:
            raise ContextDeskError("no user message comes before this reply")
        history = [m for m in messages if m.id < user.id]
        added, removed = set(include), set(exclude)
        original = reply.request_context
        kept = [
            SessionItem(i.ref, "always" if i.include_mode == "always" else "manual")
            for i in original.items
            if i.include_mode != "agent" and i.ref not in removed
        ]
        kept += [SessionItem(ref, "manual") for ref in added if all(item.ref != ref for item in kept)]
        config = SelectionConfig.model_validate({**self.selection_settings.model_dump(), **(selection or {})})
        provider: Provider | None = None
        model_id, resolve_error = "", ""
        try:
            provider, model_id = self._resolve_provider(original.model)
        except ProviderError as error:
            resolve_error = str(error)
        tool_calling = provider.tool_calling(model_id) if provider is not None else "none"
        if tool_calling == "routed":
            # The reply recorded only the tool routed to; every session tool is a candidate again.
            kept += [
                item
                for item in self.items
                if item.ref.type == "tool"
                and item.ref not in removed
                and all(k.ref != item.ref for k in kept)
            ]
        tools = self._tools.tools()
        previous = last_user_text(history)
        if self._selector is None:
            outcome = SelectionOutcome(
                (),
                (),
                SelectionRun(
                    config.top_k, config.top_n, config.include_score, config.strategy, status="disabled"
                ),
            )
        else:
            candidates = [c for c in agent_candidates(self.agent, kept, tools) if c.ref not in removed]
            outcome = await self._selector.select(user.content, candidates, config, previous)
        context = RequestContext(
            items=(*(RequestItem(i.ref, i.include_mode) for i in kept), *outcome.items),
            model=original.model,
            selection=outcome.run,
            near_misses=outcome.near_misses,
        )
        descriptors = {ItemRef("tool", t.name, t.server): t for t in tools} if tool_calling != "none" else {}
        if tool_calling == "routed":
            context = await route_tool(self._selector, user.content, previous, context, descriptors, config)
        if provider is None:
            return replace(context, extras={**context.extras, "budget": resolve_error})
        try:
            recent, summary = split_at_summary(history)
            prompt = build_prompt(
                self.agent,
                context,
                recent,
                user.content,
                descriptors,
                counter=self._counter(provider, model_id),
                limits=self.context_limits(provider, model_id),
                attached=self.attached_resources(),
                summary=summary.content if summary else None,
            )
        except (ProviderError, ContextOverflowError) as error:
            return replace(context, extras={**context.extras, "budget": str(error)})
        return replace(context, manifest=prompt.manifest)

    def cancel(self) -> None:
        """Stop the reply in progress; what was received so far is kept, marked cancelled."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def send(self, text: str) -> AsyncGenerator[ChatEvent, None]:
        """Answer ``text``, yielding events as it goes; ends with a ReplyFinished.

        Raises:
            UserDataError: the message could not be saved (nothing was sent to the model).
        """
        self._task = asyncio.current_task()
        one_turn = self._one_turn_reference(text)
        history = self.store.messages(self.id, with_contexts=False)
        user_message = self.store.add_message(self.id, "user", text)
        if not self._record.title:
            self.rename(_title_from(text))
        yield UserMessageSaved(user_message)

        mentioned, _unknown = mentioned_items(text, self.agent)
        for ref in mentioned:
            self.add_item(ref)
        settings = self.chat_settings
        tool_calling = self._tool_calling(settings.model)
        tools_now = self._tools.tools() if tool_calling != "none" else ()
        context = await self._build_context(text, history, settings, tools_now, one_turn)
        if not tools_now and self._tools.tools():
            note = f"{settings.model} cannot call tools, so none were offered"
            context = replace(context, extras={**context.extras, "tools": note})
        descriptors = {ItemRef("tool", t.name, t.server): t for t in tools_now}
        if tool_calling == "routed":
            previous = last_user_text(history)
            context = await route_tool(
                self._selector, text, previous, context, descriptors, self.selection_settings
            )
        yield ContextBuilt(context)

        async for event in self._reply(
            text, history, context, settings, descriptors, user_message.id, routed=tool_calling == "routed"
        ):
            yield event

    def _tool_calling(self, model_ref: str) -> ToolCalling:
        try:
            provider, model_id = self._resolve_provider(model_ref)
        except ContextDeskError:
            return "native"  # the reply will report the provider problem itself
        return provider.tool_calling(model_id)

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

    async def _build_context(
        self,
        text: str,
        history: Sequence[StoredMessage],
        settings: ChatDefaults,
        tools: Sequence[ToolDescriptor],
        one_turn: ItemRef | None = None,
    ) -> RequestContext:
        offered = {ItemRef("tool", tool.name, tool.server) for tool in tools}
        session_items = tuple(item for item in self.items if item.ref.type != "tool" or item.ref in offered)
        items = [RequestItem(item.ref, item.include_mode) for item in session_items]
        if one_turn is not None and all(item.ref != one_turn for item in session_items):
            items.append(RequestItem(one_turn, "manual"))
            session_items = (*session_items, SessionItem(one_turn, "manual"))
        config = self.selection_settings
        if self._selector is None:
            outcome = SelectionOutcome(
                (),
                (),
                SelectionRun(
                    config.top_k, config.top_n, config.include_score, config.strategy, status="disabled"
                ),
            )
        else:
            previous = last_user_text(history)
            candidates = agent_candidates(self.agent, session_items, tools)
            outcome = await self._selector.select(text, candidates, config, previous)
        return RequestContext(
            items=(*items, *outcome.items),
            model=settings.model,
            selection=outcome.run,
            near_misses=outcome.near_misses,
        )

    async def _reply(
        self,
        text: str,
        history: Sequence[StoredMessage],
        context: RequestContext,
        settings: ChatDefaults,
        descriptors: Mapping[ItemRef, ToolDescriptor],
        user_message_id: int,
        *,
        routed: bool = False,
    ) -> AsyncIterator[ChatEvent]:
        """The model's turns for one message. ``routed``: the model must call the one tool left in
        ``context`` on its first turn and is offered none after (see ``tool_routing``)."""
        turns: list[ChatMessage] = []
        usage = TokenUsage()
        message: StoredMessage | None = None
        content = ""
        try:
            provider, model_id = self._resolve_provider(settings.model)
            generation = GenerationSettings(
                model=model_id,
                max_output_tokens=settings.max_output_tokens,
                temperature=settings.temperature,
                top_p=settings.top_p,
            )
            counter = self._counter(provider, model_id)
            limits = self.context_limits(provider, model_id, settings)
            recent, summary = split_at_summary(history)
            config = self.context_settings
            if (
                config.auto_compact
                and counter.messages(history_messages(recent)) > config.compact_at * limits.fit.budget
            ):
                note = await self._compact(
                    provider, model_id, counter, limits, settings, before_id=user_message_id
                )
                if note is not None:
                    yield Compacted(note, automatic=True)
                    history = [
                        m
                        for m in self.store.messages(self.id, with_contexts=False)
                        if m.id < user_message_id or m.role == "summary"
                    ]
                    recent, summary = split_at_summary(history)
            for turn in range(settings.max_chat_turns):
                prompt = build_prompt(
                    self.agent,
                    context,
                    recent,
                    text,
                    descriptors if not routed or turn == 0 else {},
                    counter=counter,
                    limits=limits,
                    current_turns=turns,
                    attached=self.attached_resources(),
                    summary=summary.content if summary else None,
                )
                context = replace(context, manifest=prompt.manifest)
                message = self.store.add_message(
                    self.id, "assistant", "", status="streaming", request_context=context
                )
                content, calls, last_save = "", [], time.monotonic()
                request = ChatRequest(
                    messages=prompt.messages,
                    settings=generation,
                    tools=[b.spec for b in prompt.tools],
                    call_tool=prompt.tools[0].spec.name if routed and prompt.tools else None,
                )
                async for event in self._streamer(provider, request):
                    if isinstance(event, TextDelta):
                        content += event.text
                        # Saved before it is shown, so what the user saw survives a crash.
                        if time.monotonic() - last_save >= SAVE_PARTIAL_EVERY_SECONDS:
                            message = self.store.update_message(message, content=content)
                            last_save = time.monotonic()
                        yield ReplyDelta(event.text)
                    elif isinstance(event, ToolCallEvent):
                        calls.append(event.call)
                    elif isinstance(event, UsageEvent):
                        usage = _add_usage(
                            usage,
                            event.usage.input_tokens,
                            event.usage.output_tokens,
                            event.usage.cached_input_tokens,
                        )
                    elif isinstance(event, RetryEvent):
                        yield RetryScheduled(event.attempt, event.delay, event.error)
                    elif isinstance(event, FinishEvent):
                        pass
                context = replace(context, usage=usage)
                if not calls:
                    message = self.store.update_message(
                        message, content=content, status="complete", request_context=context
                    )
                    yield ReplyFinished(message)
                    return
                records: list[ToolCallRecord] = []
                message = self.store.update_message(
                    message,
                    content=content,
                    request_context=context,
                    tool_calls=tuple(_pending(c, prompt) for c in calls),
                )
                for call in calls:
                    async for tool_event in self._run_tool_call(call, prompt, settings):
                        if isinstance(tool_event, ToolCallFinished):
                            records.append(tool_event.record)
                        yield tool_event
                    message = self.store.update_message(
                        message, tool_calls=(*records, *(_pending(c, prompt) for c in calls[len(records) :]))
                    )
                message = self.store.update_message(message, status="complete")
                turns += _turn_messages(content, calls, records, prompt)
                yield TurnSaved(message)
            stop = (
                f"Stopped after {settings.max_chat_turns} model turns (the chat's maxChatTurns). "
                "Send a message to let the assistant continue, or raise maxChatTurns in the chat settings."
            )
            message = self.store.add_message(self.id, "error", stop, status="error", error=stop)
            yield ReplyFinished(message)
        except (ProviderError, ContextOverflowError) as error:
            failed = self._finish_failed(message, content, context, str(error))
            yield ReplyFinished(failed)
        except (asyncio.CancelledError, GeneratorExit):
            if message is not None and message.status == "streaming":
                try:
                    self.store.update_message(
                        message, content=content, status="cancelled", request_context=context
                    )
                except UserDataError as error:
                    # Left 'streaming': the next start marks it partial, so nothing is lost.
                    logger.warning("could not mark the cancelled reply: %s", error)
            raise

    def _finish_failed(
        self, message: StoredMessage | None, content: str, context: RequestContext, error: str
    ) -> StoredMessage:
        if message is None:
            return self.store.add_message(
                self.id, "error", error, status="error", request_context=context, error=error
            )
        return self.store.update_message(
            message,
            content=content,
            status="partial" if content else "error",
            request_context=context,
            error=error,
        )

    async def _run_tool_call(
        self, call: ToolCall, prompt: Prompt, settings: ChatDefaults
    ) -> AsyncIterator[ToolCallStarted | ApprovalRequest | ToolCallFinished]:
        binding = prompt.binding(call.name)
        if binding is None:
            yield ToolCallFinished(
                ToolCallRecord(
                    id=call.id,
                    server="",
                    tool=call.name,
                    arguments=call.arguments,
                    result=f"No tool named {call.name} is available in this chat.",
                    is_error=True,
                    elapsed_seconds=0.0,
                )
            )
            return
        approval: Approval = "auto"
        if self._needs_approval(binding, settings):
            request = ApprovalRequest(
                call_id=call.id, server=binding.server, tool=binding.tool, arguments=call.arguments
            )
            yield request
            decision = await request.wait()
            if decision is ApprovalDecision.DENY:
                yield ToolCallFinished(
                    ToolCallRecord(
                        id=call.id,
                        server=binding.server,
                        tool=binding.tool,
                        arguments=call.arguments,
                        result="The user denied this tool call.",
                        is_error=True,
                        approval="denied",
                    )
                )
                return
            if decision is ApprovalDecision.ALLOW_FOR_CHAT:
                self._allow_for_chat(binding)
                approval = "allowed_for_chat"
            else:
                approval = "allowed_once"
        yield ToolCallStarted(call.id, binding.server, binding.tool, call.arguments)
        started = time.monotonic()
        try:
            outcome = await self._tools.call_tool(binding.server, binding.tool, call.arguments)
            result, is_error, elapsed = outcome.text, outcome.is_error, outcome.elapsed_seconds
        except (ContextDeskError, LookupError, OSError, TimeoutError) as error:
            result, is_error, elapsed = f"The tool failed: {error}", True, time.monotonic() - started
        yield ToolCallFinished(
            ToolCallRecord(
                id=call.id,
                server=binding.server,
                tool=binding.tool,
                arguments=call.arguments,
                result=result,
                is_error=is_error,
                elapsed_seconds=round(elapsed, 4),
                approval=approval,
            )
        )

    def _needs_approval(self, binding: ToolBinding, settings: ChatDefaults) -> bool:
        if f"{binding.server}/{binding.tool}" in self._record.chat_settings.get("allowedTools", []):
            return False
        if settings.tool_permission is ToolPermissionPolicy.ALLOW:
            return False
        if settings.tool_permission is ToolPermissionPolicy.ASK:
            return True
        return binding.permission_required

    def _allow_for_chat(self, binding: ToolBinding) -> None:
        current = dict(self._record.chat_settings)
        current["allowedTools"] = sorted(
            {*current.get("allowedTools", []), f"{binding.server}/{binding.tool}"}
        )
        self._save_record(chat_settings=current)


def _pending(call: ToolCall, prompt: Prompt) -> ToolCallRecord:
    binding = prompt.binding(call.name)
    return ToolCallRecord(
        id=call.id,
        server=binding.server if binding else "",
        tool=binding.tool if binding else call.name,
        arguments=call.arguments,
    )


def _turn_messages(
    content: str, calls: Sequence[ToolCall], records: Sequence[ToolCallRecord], prompt: Prompt
) -> list[ChatMessage]:
    out = [ChatMessage("assistant", content, tool_calls=tuple(calls))]
    for call, record in zip(calls, records, strict=True):
        out.append(
            ChatMessage(
                "tool", record.result, tool_call_id=call.id, tool_name=call.name, is_error=record.is_error
            )
        )
    return out


def _add_usage(usage: TokenUsage, inputs: int | None, outputs: int | None, cached: int | None) -> TokenUsage:
    def add(a: int | None, b: int | None) -> int | None:
        return b if a is None else a if b is None else a + b

    return TokenUsage(
        add(usage.input_tokens, inputs),
        add(usage.output_tokens, outputs),
        add(usage.cached_input_tokens, cached),
    )


def last_user_text(history: Sequence[StoredMessage]) -> str | None:
    """The user's previous message, which short follow-ups take their topic from."""
    return next((m.content for m in reversed(history) if m.role == "user"), None)


def _title_from(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= TITLE_LENGTH else line[: TITLE_LENGTH - 1].rstrip() + "…"


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:12]}"


def split_at_summary(messages: Sequence[StoredMessage]) -> tuple[list[StoredMessage], StoredMessage | None]:
    """The messages after the latest compaction, and that compaction's summary (if any)."""
    summary = next(
        (m for m in reversed(messages) if m.role == "summary" and m.covers_until is not None), None
    )
    if summary is None:
        return [m for m in messages if m.role != "summary"], None
    assert summary.covers_until is not None
    return [m for m in messages if m.id > summary.covers_until and m.role != "summary"], summary
