"""A memory to write (:class:`MemoryDraft`) and the checks every write makes of it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agent_core.errors import ContextDeskError
from agent_core.memory._line_rules import NUL_MESSAGE, time_problem
from agent_core.memory.records import Memory, Provenance, Scope, Tier

__all__ = [
    "MAX_MEMORY_CHARS",
    "MemoryDraft",
    "MemoryInputError",
    "check_draft",
    "clean_kind",
    "clean_text",
    "draft_of",
]

MAX_MEMORY_CHARS = 2000
_KIND = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")


class MemoryInputError(ContextDeskError):
    """A memory could not be written or found; the message says why and what to do."""


@dataclass(frozen=True)
class MemoryDraft:
    """A memory to write, before duplicates and conflicts are looked for."""

    text: str
    kind: str = "fact"
    scope: Scope = "agent"
    tier: Tier = "long"
    importance: int = 3
    expires_at: float | None = None
    provenance: Provenance = field(default_factory=Provenance)
    session_id: str | None = None  # the chat, for chat-scoped and working memories
    id: str | None = None  # kept when given (imports), else made up
    created_at: float | None = None


def clean_text(text: str) -> str:
    """``text`` with its white space made single spaces.

    Raises:
        MemoryInputError: it holds a NUL character (refused, never stripped: it is a sign of
            binary data, and what is left of it would not be what the user meant).
    """
    if "\x00" in text:
        raise MemoryInputError(f"The memory {NUL_MESSAGE}.")
    return " ".join(text.split())


def clean_kind(kind: str) -> str:
    return kind.strip().lower().replace(" ", "-")


def draft_of(memory: Memory) -> MemoryDraft:
    return MemoryDraft(
        memory.text, memory.kind, memory.scope, memory.tier, memory.importance, memory.expires_at
    )


def check_draft(draft: MemoryDraft) -> None:
    """Raises MemoryInputError, saying what to change, unless ``draft`` can be written."""
    if not draft.text:
        raise MemoryInputError("A memory needs some text.")
    if len(draft.text) > MAX_MEMORY_CHARS:
        raise MemoryInputError(
            f"A memory is at most {MAX_MEMORY_CHARS} characters ({len(draft.text)} given): keep one fact per "
            "memory, or add a long text as a reference instead."
        )
    if not _KIND.match(draft.kind):
        raise MemoryInputError(
            f"Kind {draft.kind!r} is not valid: use a short word like fact, preference, person, project."
        )
    if not 1 <= draft.importance <= 5:
        raise MemoryInputError(f"Importance is 1 to 5 ({draft.importance} given).")
    if draft.scope not in ("global", "agent", "chat"):
        raise MemoryInputError(f"Scope {draft.scope!r} is not one of global, agent, chat.")
    if draft.tier not in ("pinned", "long", "short", "working"):
        raise MemoryInputError(f"Tier {draft.tier!r} is not one of pinned, long, short, working.")
    for name, value in (("id", draft.id), ("quote", draft.provenance.quote), ("session", draft.session_id)):
        if value is not None and "\x00" in value:
            raise MemoryInputError(f"The memory's {name} {NUL_MESSAGE}.")
    for name, when in (("created_at", draft.created_at), ("expires_at", draft.expires_at)):
        problem = time_problem(when)
        if problem:
            raise MemoryInputError(f"The memory's {name} {problem}.")
