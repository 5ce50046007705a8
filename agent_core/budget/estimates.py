"""What the next request would cost with the chat's history as it is now (after a reply, a
compaction or its undo): what the gauge shows, one measure before and after a compaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from agent_core.budget.counting import TokenCounter
from agent_core.budget.fitting import Limits, fit_history
from agent_core.context.items import ContextManifest, ManifestPart
from agent_core.providers.base import ChatMessage

__all__ = ["estimate_next_request"]

# Parts of the last request that belonged to its own message or history: the estimate replaces
# the history and summary with the chat's as they are now and leaves out the message itself.
_REPLACED = frozenset({"history", "summary", "message", "current_turns"})


def estimate_next_request(
    last: ContextManifest,
    *,
    history: Sequence[ChatMessage],
    summary_tokens: int,
    counter: TokenCounter,
    limits: Limits,
) -> ContextManifest:
    """The last request's other parts (system prompt, items, tools, memories) with the summary
    the chat holds now and its history trimmed as the request will trim it (``fit_history``),
    what is left out listed in ``trimmed``; always marked as an estimate."""
    parts = [part for part in last.parts if part.kind not in _REPLACED]
    if summary_tokens:
        parts.append(ManifestPart("summary", summary_tokens, detail="the conversation so far"))
    room = last.budget - sum(part.tokens for part in parts)
    kept, trimmed = fit_history(history, room, counter, limits)
    if kept:
        parts.append(ManifestPart("history", counter.messages(kept), detail=f"{len(kept)} messages"))
    return replace(last, exact=False, parts=tuple(parts), trimmed=tuple(trimmed))
