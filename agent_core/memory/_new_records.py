"""The Memory records a write makes from a draft: a new memory, and one said again (merged)."""

from __future__ import annotations

from dataclasses import replace

from agent_core.memory._drafts import MemoryDraft
from agent_core.memory.records import Memory, Status

__all__ = ["merged_with", "new_memory"]


def new_memory(
    draft: MemoryDraft, memory_id: str, agent: str, status: Status, now: float, proposed_over: str | None
) -> Memory:
    """``draft`` as a memory of ``agent`` (a global one belongs to none); ``proposed_over``: the
    memory it would supersede once accepted."""
    created = draft.created_at if draft.created_at is not None else now
    return Memory(
        id=memory_id,
        text=draft.text,
        kind=draft.kind,
        scope=draft.scope,
        tier=draft.tier,
        status=status,
        importance=draft.importance,
        agent="" if draft.scope == "global" else agent,
        session_id=draft.session_id if draft.scope == "chat" or draft.tier == "working" else None,
        provenance=draft.provenance,
        created_at=created,
        updated_at=created if draft.created_at is not None else now,
        expires_at=draft.expires_at,
        supersedes=proposed_over,
    )


def merged_with(memory: Memory, draft: MemoryDraft, now: float, reason: str) -> tuple[Memory, str]:
    """``memory`` counted once more because ``draft`` said it again, and the history's detail
    saying where it was said."""
    merged = replace(
        memory,
        seen_count=memory.seen_count + 1,
        importance=max(memory.importance, draft.importance),
        updated_at=now,
    )
    quote = draft.provenance.quote or draft.text
    provenance = draft.provenance
    source = (
        f" (chat {provenance.session_id}, message {provenance.message_id})" if provenance.session_id else ""
    )
    return merged, f"said again{source}: {quote!r}; {reason}"
