"""What the next request would cost with the chat's history as it is now (after a reply, a
compaction or its undo): what the gauge shows, one measure before and after a compaction."""

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
