"""The model's turns for one message: stream each turn (saving it as it grows), run the tool
calls it asks for, and go again until the model answers without tools or ``maxChatTurns`` is
reached. Every turn is stored with the RequestContext it used; whatever fails, the chat stays
consistent and what the user saw is kept."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from agent_core.agent.agent import Agent
from agent_core.agent.items import DocumentItem
from agent_core.async_streams import merged
from agent_core.budget.counting import TokenCounter, estimate_tokens
from agent_core.budget.fitting import ContextOverflowError
from agent_core.budget.overflow_advice import DEFAULT_OVERFLOW_FIXES, OverflowFixes
from agent_core.chat.chat_settings import ChatSettings, prompt_limits
from agent_core.chat.compacting import compact_chat, history_too_long
from agent_core.chat.events import (
    ChatEvent,
    Compacted,
    ItemPulled,
    PromptProgress,
    ReplyDelta,
    ReplyFinished,
    RequestSent,
    RetryScheduled,
    SamplingAnswered,
    SubagentFinished,
    ToolCallFinished,
    TurnSaved,
    WorkflowRunFinished,
)
from agent_core.chat.history import split_at_summary
from agent_core.chat.image_passing import with_images_for
from agent_core.chat.item_kinds import recorded_pull
from agent_core.chat.prompt import Prompt, PromptLimits, build_prompt, tool_images
from agent_core.chat.reply_provenance import reply_provenance, stopped_calls, tool_uses
from agent_core.chat.resolved_model import ModelResolver, ResolvedModel
from agent_core.chat.tool_calls import ToolCaller, pending_record
from agent_core.chat.tool_handlers import ToolCallEvent
from agent_core.context.items import ItemRef, RequestContext, RequestItem, TokenUsage
from agent_core.context.provenance import ToolUse
from agent_core.context.request_tools import PULLED_REASON
from agent_core.errors import ContextDeskError, ProviderError, ReplyLimitError, UserDataError
from agent_core.providers.base import (
    ChatMessage,
    ChatRequest,
    PromptProgressEvent,
    Provider,
    RetryEvent,
    StreamEvent,
    TextDelta,
    ToolCall,
    UsageEvent,
)
from agent_core.providers.base import ToolCallEvent as ProviderToolCall
from agent_core.store.chats import ChatStore, MessageStatus, StoredMessage, ToolCallRecord
from agent_core.store.sent_requests import sent_request
from agent_core.tools.runtime import ToolDescriptor

__all__ = ["ReplyLoop", "ReplyRequest", "Streamer"]

logger = logging.getLogger(__name__)

# How a request is streamed; tests pass stream_with_retries with a fake sleep.
Streamer = Callable[[Provider, ChatRequest], AsyncIterator[StreamEvent]]

SAVE_PARTIAL_EVERY_SECONDS = 0.5
# A reply is cut at this many characters per token of maxOutputTokens: a token is a few
# characters even in scripts with long words, so a provider sending more ignores the limit (a
# hostile or broken server streaming megabytes) and what it sends is not kept whole.
CHARACTERS_PER_TOKEN_CAP = 16
MIN_REPLY_CAP = 65_536


@dataclass(frozen=True)
class ReplyRequest:
    """One user message to answer, with the context built for it."""

    text: str
    history: Sequence[StoredMessage]  # the chat before this message
    context: RequestContext
    tools: Mapping[ItemRef, ToolDescriptor]
    user_message_id: int
    # The model must call the one tool left in ``context`` on its first turn and is offered
    # none after (see ``tool_routing``).
    routed: bool = False
    memory_texts: Mapping[str, str] = field(default_factory=dict)  # recalled memory id -> text


@dataclass(frozen=True)
class ReplyLoop:
    """What answering needs from the chat it answers in."""

    agent: Agent
    store: ChatStore
    session_id: str
    models: ModelResolver
    settings: ChatSettings
    streamer: Streamer
    tool_caller: ToolCaller
    attached: Callable[[], Mapping[ItemRef, DocumentItem]]
    overflow_fixes: OverflowFixes = DEFAULT_OVERFLOW_FIXES

    async def run(self, request: ReplyRequest) -> AsyncIterator[ChatEvent]:
        """Events of the reply; ends with a ReplyFinished (or raises CancelledError, after
        marking the reply cancelled). The steps: compact a long history, then per model turn
        build the prompt, stream the turn, and run the tool calls it asks for."""
        reply = _Reply(request.context)
        settings = self.settings
        try:
            model = self.models.resolve(settings.chat.model)
            limits = prompt_limits(model, settings, self.overflow_fixes)
            compacted, history = await self._history_to_send(request, model, limits)
            if compacted is not None:
                yield compacted
            recent, summary = split_at_summary(history)
            for turn in range(settings.chat.max_chat_turns):
                prompt = build_prompt(
                    self.agent,
                    reply.context,
                    recent,
                    request.text,
                    request.tools if not request.routed or turn == 0 else {},
                    counter=model.counter,
                    limits=limits,
                    current_turns=reply.turns,
                    attached=self.attached(),
                    summary=summary.content if summary else None,
                    memories=request.memory_texts,
                )
                prompt = with_images_for(prompt, model)
                calls: list[ToolCall] = []
                async for event in self._stream_turn(reply, prompt, model, request.routed, calls):
                    yield event
                if not calls:
                    reply.record_provenance()
                    yield ReplyFinished(self._save(reply, content=reply.content, status="complete"))
                    return
                async for tool_event in self._run_turn_calls(reply, calls, prompt):
                    yield tool_event
                reply.tools += tool_uses(reply.saved.tool_calls, routed=request.routed and turn == 0)
                yield TurnSaved(reply.saved)
            yield ReplyFinished(self._stopped_at_turn_cap())
        except (ProviderError, ContextOverflowError) as error:
            reply.context = _with_counts_so_far(reply.context, reply.usage, reply.streaming, reply.content)
            yield ReplyFinished(self._finish_failed(reply.message, reply.content, reply.context, str(error)))
        except (asyncio.CancelledError, GeneratorExit):
            if reply.message is not None and reply.message.status == "streaming":
                reply.context = _with_counts_so_far(
                    reply.context, reply.usage, reply.streaming, reply.content
                )
                stopped = stopped_calls(reply.message.tool_calls)  # a call it ran was stopped with it
                reply.tools += tool_uses(stopped, routed=request.routed and not reply.turns)
                reply.record_provenance()
                try:
                    self._save(reply, content=reply.content, status="cancelled", tool_calls=stopped)
                except UserDataError as error:
                    # Left 'streaming': the next start marks it partial, so nothing is lost.
                    logger.warning("could not mark the cancelled reply: %s", error)
            raise

    async def _history_to_send(
        self, request: ReplyRequest, model: ResolvedModel, limits: PromptLimits
    ) -> tuple[Compacted | None, Sequence[StoredMessage]]:
        """The history the turns are built on: compacted first when it passes ``compactAt``."""
        history = request.history
        if not history_too_long(history, model, self.settings, limits):
            return None, history
        note = await compact_chat(
            self.store, self.session_id, model, self.settings, limits, before_id=request.user_message_id
        )
        if note is None:
            return None, history
        history = [
            m
            for m in self.store.messages(self.session_id, with_contexts=False, current_only=True)
            if m.id < request.user_message_id or m.role == "summary"
        ]
        return Compacted(note, automatic=True), history

    async def _stream_turn(
        self, reply: _Reply, prompt: Prompt, model: ResolvedModel, routed: bool, calls: list[ToolCall]
    ) -> AsyncIterator[ChatEvent]:
        """One model turn: its row saved as ``streaming``, the request kept and sent, the text
        streamed (saved as it grows, cut past the output cap), the tool calls it asks for
        collected in ``calls``."""
        settings = self.settings
        generation = model.generation(settings.chat)
        reply.context = prompt.sent_context(reply.context)
        reply.message = self.store.add_message(
            self.session_id, "assistant", "", status="streaming", request_context=reply.context
        )
        reply.content, last_save, reply.without_model = "", time.monotonic(), False
        chat_request = ChatRequest(
            messages=prompt.messages,
            settings=generation,
            tools=[b.spec for b in prompt.tools],
            call_tool=prompt.tools[0].spec.name if routed and prompt.tools else None,
        )
        cap = max(MIN_REPLY_CAP, CHARACTERS_PER_TOKEN_CAP * generation.max_output_tokens)
        self._keep_sent_request(reply.message, chat_request, model)
        yield RequestSent(reply.message)
        reply.streaming = _Streaming(prompt.manifest.total_tokens, model.counter)
        async for event in _within_deadline(
            self.streamer(model.provider, chat_request), settings.chat.reply_timeout_seconds
        ):
            if isinstance(event, TextDelta):
                if len(reply.content) + len(event.text) > cap:
                    reply.content += event.text[: cap - len(reply.content)]
                    raise ReplyLimitError(
                        f"Cut at {cap:,} characters: the provider sent far more than maxOutputTokens "
                        f"({generation.max_output_tokens:,}) allows. The text up to there is kept."
                    )
                reply.content += event.text
                # Saved before it is shown, so what the user saw survives a crash.
                if time.monotonic() - last_save >= SAVE_PARTIAL_EVERY_SECONDS:
                    self._save(reply, content=reply.content)
                    last_save = time.monotonic()
                yield ReplyDelta(event.text)
            elif isinstance(event, ProviderToolCall):
                calls.append(event.call)
            elif isinstance(event, UsageEvent):
                reply.without_model = event.usage.without_model
                reply.usage = reply.usage.plus(TokenUsage(**vars(event.usage)))  # until Usage is TokenUsage
                reply.streaming = None
            elif isinstance(event, RetryEvent):
                yield RetryScheduled(event.attempt, event.delay, event.error)
            elif isinstance(event, PromptProgressEvent):
                yield PromptProgress(event.done, event.total, event.cached)
        reply.streaming = None
        reply.context = replace(reply.context, usage=reply.usage)

    async def _run_turn_calls(
        self, reply: _Reply, calls: Sequence[ToolCall], prompt: Prompt
    ) -> AsyncIterator[ToolCallEvent]:
        """The turn's tool calls run, each outcome saved on the turn's row as it comes (and what
        a call adds to the reply's context: a sub-agent's run, a pulled item, a sampling, a
        workflow run), then the turn is complete and goes back to the model."""
        self._save(
            reply,
            content=reply.content,
            tool_calls=tuple(pending_record(c, prompt) for c in calls),
        )
        finished: dict[str, ToolCallRecord] = {}
        async for tool_event in self._run_calls(calls, prompt, reply.saved.id):
            recorded = _context_with(reply.context, tool_event)
            if recorded is not None:
                reply.context = recorded
                self._save(reply)
            yield tool_event
            if isinstance(tool_event, ToolCallFinished):
                finished[tool_event.record.id] = tool_event.record
                self._save(
                    reply, tool_calls=tuple(finished.get(c.id) or pending_record(c, prompt) for c in calls)
                )
        records = [finished[c.id] for c in calls]
        self._save(reply, status="complete")
        reply.turns += _turn_messages(reply.content, calls, records, prompt)

    def _save(
        self,
        reply: _Reply,
        *,
        content: str | None = None,
        status: MessageStatus | None = None,
        tool_calls: tuple[ToolCallRecord, ...] | None = None,
    ) -> StoredMessage:
        """The turn's row updated, with the reply's context as it is now."""
        reply.message = self.store.update_message(
            reply.saved, content=content, status=status, request_context=reply.context, tool_calls=tool_calls
        )
        return reply.message

    def _stopped_at_turn_cap(self) -> StoredMessage:
        stop = (
            f"Stopped after {self.settings.chat.max_chat_turns} model turns (the chat's maxChatTurns). "
            "Send a message to let the assistant continue, or raise maxChatTurns in the chat settings."
        )
        return self.store.add_message(self.session_id, "error", stop, status="error", error=stop)

    def _keep_sent_request(self, message: StoredMessage, request: ChatRequest, model: ResolvedModel) -> None:
        """Keep what this turn sends, masked and bounded, for View Context's "Show exact request";
        failing to keep it never stops the reply."""
        settings = model.provider.settings
        secrets = (settings.api_key, *settings.headers.values())
        try:
            self.store.save_sent_request(message, sent_request(request, model.ref, secrets=secrets))
        except UserDataError as error:
            logger.warning("could not keep the request sent for reply %s: %s", message.id, error)

    async def _run_calls(
        self, calls: Sequence[ToolCall], prompt: Prompt, message_id: int
    ) -> AsyncIterator[ToolCallEvent]:
        """The turn's tool calls: one after the other, except those whose handler runs them side by
        side (sub-agents, each up to its maxParallel), their events interleaved as they come."""
        delegated = [c for c in calls if self.tool_caller.side_by_side(c, prompt)]
        for call in calls:
            if call not in delegated:
                async for event in self.tool_caller.run(call, prompt, message_id):
                    yield event
        if len(delegated) == 1:
            async for event in self.tool_caller.run(delegated[0], prompt, message_id):
                yield event
        elif delegated:
            async for event in merged([self.tool_caller.run(c, prompt, message_id) for c in delegated]):
                yield event

    def _finish_failed(
        self, message: StoredMessage | None, content: str, context: RequestContext, error: str
    ) -> StoredMessage:
        if message is None:
            return self.store.add_message(
                self.session_id, "error", error, status="error", request_context=context, error=error
            )
        return self.store.update_message(
            message,
            content=content,
            status="partial" if content else "error",
            request_context=context,
            error=error,
        )


async def _within_deadline(events: AsyncIterator[StreamEvent], seconds: float) -> AsyncIterator[StreamEvent]:
    """``events`` until ``seconds`` have passed, then the stream is closed (which cancels its HTTP
    response or stops the local model) and ReplyLimitError says why. Each wait is bounded, not the
    consumer's time between events."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    try:
        while True:
            remaining = deadline - loop.time()
            try:
                if remaining <= 0:
                    raise TimeoutError
                event = await asyncio.wait_for(anext(events), remaining)
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise ReplyLimitError(
                    f"Stopped: the reply took longer than {seconds:g} s (replyTimeoutSeconds). The text "
                    "so far is kept; raise replyTimeoutSeconds in the chat settings for long answers."
                ) from None
            yield event
    finally:
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            await aclose()


def _turn_messages(
    content: str, calls: Sequence[ToolCall], records: Sequence[ToolCallRecord], prompt: Prompt
) -> list[ChatMessage]:
    out = [ChatMessage("assistant", content, tool_calls=tuple(calls))]
    for call, record in zip(calls, records, strict=True):
        out.append(
            ChatMessage(
                "tool",
                record.result,
                tool_call_id=call.id,
                tool_name=call.name,
                is_error=record.is_error,
                images=tool_images(record),
            )
        )
    return out


@dataclass
class _Reply:
    """What one reply has so far: its context, the turns that go back to the model, the usage
    the provider reported, the stored row of the current turn and its text."""

    context: RequestContext
    turns: list[ChatMessage] = field(default_factory=list)
    usage: TokenUsage = field(default_factory=TokenUsage)
    message: StoredMessage | None = None
    content: str = ""
    tools: list[ToolUse] = field(default_factory=list)  # the calls of its turns so far
    without_model: bool = False  # the current turn's text came from no model (a tool's result)
    # While a turn streams, its counts are not known until the provider reports them at the end.
    streaming: _Streaming | None = None

    def record_provenance(self) -> None:
        """What produced the finished reply, in its context."""
        provenance = reply_provenance(
            self.context.model, self.tools, last_turn_without_model=self.without_model
        )
        self.context = replace(self.context, provenance=provenance)

    @property
    def saved(self) -> StoredMessage:
        """The current turn's row (there is one once a turn has started)."""
        assert self.message is not None
        return self.message


def _context_with(context: RequestContext, event: ToolCallEvent) -> RequestContext | None:
    """``context`` with what a tool call's event adds to the reply's record, or None when it adds
    nothing. A sub-agent's or a sampling's tokens are recorded beside the reply's own, never
    inside them."""
    if isinstance(event, SubagentFinished) and not event.origin:
        return replace(context, delegations=(*context.delegations, event.delegation))
    if isinstance(event, ItemPulled) and (recorded := recorded_pull(context, event.ref)) is not None:
        return recorded  # as its kind records it (a loaded skill's catalogue line becomes its body)
    if isinstance(event, ItemPulled):
        return replace(context, items=(*context.items, RequestItem(event.ref, "agent", reason=PULLED_REASON)))
    if isinstance(event, SamplingAnswered):
        return replace(context, samplings=(*context.samplings, event.record))
    if isinstance(event, WorkflowRunFinished):
        return replace(context, workflow_runs=(*context.workflow_runs, event.link))
    return None


@dataclass(frozen=True)
class _Streaming:
    """A turn whose provider has not reported its counts yet: what ContextDesk counted of it."""

    prompt_tokens: int
    counter: TokenCounter


def _with_counts_so_far(
    context: RequestContext, usage: TokenUsage, streaming: _Streaming | None, content: str
) -> RequestContext:
    """``context`` of a reply that stopped early, with the counts known so far: those the provider
    reported, and for a turn it stopped in before reporting, an estimate marked as one (the prompt
    as counted when it was built, and the text received)."""
    if streaming is None:
        return replace(context, usage=usage)
    try:
        output = streaming.counter.count(content)
    except ContextDeskError as error:  # the model's tokenizer; this runs while the reply stops
        logger.info("estimating the stopped reply's tokens (%s)", error)
        output = estimate_tokens(content)
    estimate = TokenUsage(streaming.prompt_tokens, output, estimated=True)
    return replace(context, usage=usage.plus(estimate))
