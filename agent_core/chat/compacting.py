"""Compacting a chat: older turns are summarized by the chat's model and the summary is stored,
on ``/compact`` or automatically when the history passes ``compactAt`` of the window. A model
known to be limited (``providers.capability``) is not asked: the note is made of checked facts."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from agent_core.budget.compaction import plan_compaction, summarize_conversation
from agent_core.budget.fact_summary import fact_summary
from agent_core.budget.summary_check import check_summary, extractive_summary
from agent_core.chat.chat_settings import ChatSettings
from agent_core.chat.history import split_at_summary
from agent_core.chat.prompt import PromptLimits, history_messages
from agent_core.chat.resolved_model import ResolvedModel
from agent_core.providers.capability_cache import CapabilityCache, cached_capability
from agent_core.store.chats import ChatStore, StoredMessage

__all__ = ["compact_chat", "history_too_long"]

logger = logging.getLogger(__name__)


def history_too_long(
    history: Sequence[StoredMessage], model: ResolvedModel, settings: ChatSettings, limits: PromptLimits
) -> bool:
    """Whether automatic compaction should run before the next request."""
    config = settings.context
    if not config.auto_compact:
        return False
    recent, _summary = split_at_summary(history)
    return model.counter.messages(history_messages(recent)) > config.compact_at * limits.fit.budget


async def compact_chat(
    store: ChatStore,
    session_id: str,
    model: ResolvedModel,
    settings: ChatSettings,
    limits: PromptLimits,
    *,
    before_id: int | None = None,
) -> StoredMessage | None:
    """Summarize the chat's older turns (those before ``before_id``, if given) and store the
    summary; None when there is too little to compact.

    Raises:
        ProviderError: the model could not write the summary (the chat is unchanged).
    """
    messages = store.messages(session_id, with_contexts=False, current_only=True)
    if before_id is not None:
        messages = [m for m in messages if m.id < before_id]
    recent, previous = split_at_summary(messages)
    plan = plan_compaction(recent, settings.context.keep_recent_turns)
    if plan is None:
        return None
    earlier = previous.content if previous else None
    if cached_capability(model.provider, model.model_id, model.ref, CapabilityCache()).limited:
        # A model that cannot summarize faithfully writes nothing: the note is checked facts.
        note = fact_summary(plan.to_summarize, earlier)
        return store.add_message(session_id, "summary", note, covers_until=plan.covers_until)
    note = await summarize_conversation(
        model.provider,
        model.model_id,
        plan.to_summarize,
        earlier,
        model.counter,
        limits.fit.budget,
        min(1024, settings.chat.max_output_tokens),
    )
    verdict = check_summary(note, plan.to_summarize)
    if not verdict.ok:
        # Never let an empty or unfaithful note stand for the turns: take them as they were.
        logger.warning("compaction: %s; an extractive summary is kept instead", verdict.reason)
        note = extractive_summary(plan.to_summarize, earlier, verdict.reason)
    return store.add_message(session_id, "summary", note, covers_until=plan.covers_until)
