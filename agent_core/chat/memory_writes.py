"""Memories proposed from a user's message, always with consent and provenance: an explicit
"remember that …" at the start of it, and, when the agent turns extraction on, facts the extractor
finds in it. They are proposals, accepted by the user (or at once with ``memory.autoAccept``).
``/remember`` and "Remember this" save at once: see ``chat_memories``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agent_core.agent.schema import MemoryConfig
from agent_core.chat.events import MemoriesWritten
from agent_core.memory.book import MemoryBook, MemoryDraft, WriteOutcome
from agent_core.memory.extraction_rules import Proposal, explicit_request, extract_memories
from agent_core.memory.records import Provenance

__all__ = ["MemoryWrites", "memory_notices", "proposals_in", "propose_from_message"]


@dataclass(frozen=True)
class MemoryWrites:
    """What a message wrote: outcomes (proposed, saved, merged…) and notes on what was not saved."""

    outcomes: tuple[WriteOutcome, ...] = ()
    notes: tuple[str, ...] = ()


def proposals_in(text: str, config: MemoryConfig) -> list[Proposal]:
    """What the user's message ``text`` offers to remember: an explicit request always; other
    stated facts when ``memory.extraction`` is on. Quick, and needs no model."""
    explicit = explicit_request(text)
    if explicit is not None:
        return [explicit]
    return extract_memories(text) if config.extraction != "off" else []


def propose_from_message(
    book: MemoryBook,
    config: MemoryConfig,
    proposals: list[Proposal],
    *,
    session_id: str | None,
    message_id: int | None,
) -> MemoryWrites:
    """``proposals`` from one user message, written through the book with their provenance."""
    outcomes: list[WriteOutcome] = []
    notes: list[str] = []
    status: Literal["active", "proposed"] = "active" if config.auto_accept else "proposed"
    for proposal in proposals:
        draft = MemoryDraft(
            proposal.text,
            kind=proposal.kind,
            scope=config.default_scope,
            importance=proposal.importance,
            provenance=Provenance(session_id, message_id, "user", proposal.quote),
        )
        outcome = book.add(draft, "extractor", status=status, on_conflict="propose")
        if outcome.action == "blocked":
            notes.append(
                f"A memory was not saved: {'; '.join(outcome.warnings)} (never saved automatically)."
            )
        else:
            outcomes.append(outcome)
    return MemoryWrites(tuple(outcomes), tuple(notes))


def memory_notices(event: MemoriesWritten, agent_root: Path) -> list[str]:
    """One line per memory a message wrote or proposed, and per one not saved, for a chat view."""
    lines = []
    for outcome in event.outcomes:
        memory = outcome.memory
        if memory is None:
            continue
        if memory.status == "proposed":
            replaces = f", replacing “{outcome.other.text}”" if outcome.other else ""
            lines.append(
                f"Memory proposed: “{memory.text}”{replaces}. Accept it with "
                f"`contextdesk memory accept --agent {agent_root} {memory.id}`."
            )
        elif outcome.action == "merged":
            lines.append(f"Already remembered: “{memory.text}”.")
        else:
            lines.append(f"Remembered: “{memory.text}”.")
    return [*lines, *event.notes]
