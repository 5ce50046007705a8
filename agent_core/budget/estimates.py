"""What the next request would cost after the chat's history changed without a request being
made (a compaction, or its undo), so the gauge moves at once instead of after the next reply."""

from __future__ import annotations

from dataclasses import replace

from agent_core.context.items import ContextManifest, ManifestPart

__all__ = ["estimate_next_request"]

# Parts of the last request that belonged to its own message or history: the estimate replaces
# the history and summary with the chat's as they are now and leaves out the message itself.
_REPLACED = frozenset({"history", "summary", "message", "current_turns"})


def estimate_next_request(
    last: ContextManifest, *, history_tokens: int, history_messages: int, summary_tokens: int
) -> ContextManifest:
    """The last request's other parts (system prompt, items, tools, memories) with the history
    and summary the chat holds now; always marked as an estimate."""
    parts = [part for part in last.parts if part.kind not in _REPLACED]
    if summary_tokens:
        parts.append(ManifestPart("summary", summary_tokens, detail="the conversation so far"))
    if history_tokens:
        parts.append(ManifestPart("history", history_tokens, detail=f"{history_messages} messages"))
    return replace(last, exact=False, parts=tuple(parts), trimmed=())
