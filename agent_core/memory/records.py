"""What a memory is, and the history of what happened to it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

__all__ = [
    "SCOPES",
    "STATUSES",
    "TIERS",
    "Actor",
    "Memory",
    "MemoryEvent",
    "Provenance",
    "Scope",
    "Speaker",
    "Status",
    "Tier",
]

#: global: every agent; agent: one agent folder; chat: one chat.
Scope = Literal["global", "agent", "chat"]
#: pinned: always recalled, never expires; long: no expiry; short: expires after the agent's
#: shortTtlDays unused; working: lasts the chat it was made in.
Tier = Literal["pinned", "long", "short", "working"]
#: Only ``active`` memories are recalled. ``forgotten``: forgotten by the user or pruned; it can be
#: restored from the Forgotten list until it is purged.
Status = Literal["proposed", "active", "superseded", "expired", "rejected", "forgotten"]
#: Who wrote a change: the user by hand, the model (memory tool), the extractor, an import.
Actor = Literal["user", "model", "extractor", "import", "system"]
#: Who said the words a memory was taken from.
Speaker = Literal["user", "assistant", "tool", "import"]

SCOPES: tuple[str, ...] = get_args(Scope)
TIERS: tuple[str, ...] = get_args(Tier)
STATUSES: tuple[str, ...] = get_args(Status)


@dataclass(frozen=True)
class Provenance:
    """Where a memory came from: which chat and message, who said it, the very words."""

    session_id: str | None = None
    message_id: int | None = None
    speaker: Speaker = "user"
    quote: str = ""


@dataclass(frozen=True)
class Memory:
    id: str
    text: str
    kind: str  # fact, preference, person, project, event...; unknown kinds are kept as given
    scope: Scope
    tier: Tier
    status: Status
    importance: int  # 1-5
    agent: str  # the agent folder it belongs to ("" for global memories)
    session_id: str | None  # the chat, for chat-scoped and working memories
    provenance: Provenance
    created_at: float  # epoch seconds
    updated_at: float
    last_used_at: float | None = None
    use_count: int = 0
    expires_at: float | None = None
    superseded_by: str | None = None
    supersedes: str | None = None  # a proposal that, once accepted, supersedes this memory
    seen_count: int = 1  # how many times the same fact was given (duplicates merge into one)


@dataclass(frozen=True)
class MemoryEvent:
    """One change in a memory's append-only history."""

    memory_id: str
    event: str  # created, merged, edited, accepted, rejected, pinned, superseded, forgotten, restored...
    actor: Actor
    at: float
    old_text: str | None = None
    new_text: str | None = None
    detail: str = ""
