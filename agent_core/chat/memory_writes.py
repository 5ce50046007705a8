"""Memories proposed from a user's message, always with consent and provenance: an explicit
"remember that …" at the start of it, and, when the agent turns extraction on, facts found in it:
by the offline rules (``extraction: rules``), or by the chat's own model (``extraction: model``)
when it is capable, that is, not the bundled offline model (``local`` provider), which gets the
rules instead. They are proposals, accepted by the user (or at once with ``memory.autoAccept``).
``/remember`` and "Remember this" save at once: see ``chat_memories``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agent_core.agent.schema import MemoryConfig
from agent_core.chat.events import MemoriesWritten
from agent_core.errors import ProviderError
from agent_core.memory.book import MemoryBook, MemoryDraft, WriteOutcome
from agent_core.memory.extraction_model import MAX_MESSAGE_CHARS, extract_with_model
from agent_core.memory.extraction_rules import Proposal, explicit_request, extract_memories
from agent_core.memory.records import Actor, Provenance
from agent_core.providers.base import Provider
from agent_core.providers.local_llama import LocalLlamaProvider

__all__ = [
    "FoundMemories",
    "MemoryWrites",
    "asks_model",
    "memory_notices",
    "model_proposals",
    "proposals_in",
    "propose_from_message",
]


@dataclass(frozen=True)
class MemoryWrites:
    """What a message wrote: outcomes (proposed, saved, merged…) and notes on what was not saved."""

    outcomes: tuple[WriteOutcome, ...] = ()
    notes: tuple[str, ...] = ()


def proposals_in(text: str, config: MemoryConfig, *, by_model: bool = False) -> list[Proposal]:
    """What the user's message ``text`` offers to remember: an explicit request always; other
    stated facts when ``memory.extraction`` is on, unless the model is asked for them
    (``by_model``). Quick, and needs no model."""
    explicit = explicit_request(text)
    if explicit is not None:
        return [explicit]
    return extract_memories(text) if config.extraction != "off" and not by_model else []


def asks_model(text: str, config: MemoryConfig, provider: Provider, model_id: str) -> bool:
    """Whether the chat's model (``model_id`` of ``provider``) is asked for the memories in the
    user's message ``text``: ``extraction: model``; a capable model, that is one that chooses its
    own tools (``native`` tool calling) and is not the bundled offline one (a model that small
    invents facts: the rules stand in for it); and a message that is neither an explicit
    "remember that…" (the rules take it as it is) nor tiny nor a long paste."""
    return (
        config.enabled
        and config.extraction == "model"
        and not isinstance(provider, LocalLlamaProvider)
        and provider.tool_calling(model_id) == "native"
        and 4 <= len(text.strip()) <= MAX_MESSAGE_CHARS
        and explicit_request(text) is None
    )


@dataclass(frozen=True)
class FoundMemories:
    """Proposals from one message, who found them, and notes on what was left out."""

    proposals: tuple[Proposal, ...]
    actor: Actor
    notes: tuple[str, ...] = ()


async def model_proposals(
    provider: Provider, model_id: str, text: str, previous: str | None
) -> FoundMemories:
    """The memories the model finds in the user's message ``text`` that pass the checks
    (agent_core.memory.extraction_model), with notes; when the model fails or is too slow, the
    offline rules' proposals instead, with a note saying so."""
    try:
        found = await extract_with_model(provider, model_id, text, previous)
    except ProviderError as error:
        note = (
            f"The model could not look for memories in this message ({error}); the offline rules did instead."
        )
        return FoundMemories(tuple(extract_memories(text)), "extractor", (note,))
    return FoundMemories(found.proposals, "model", found.notes)


def propose_from_message(
    book: MemoryBook,
    config: MemoryConfig,
    proposals: Sequence[Proposal],
    *,
    session_id: str | None,
    message_id: int | None,
    actor: Actor = "extractor",
) -> MemoryWrites:
    """``proposals`` from one user message, written through the book with their provenance (the
    user said them; ``actor`` found them: the rules' ``extractor`` or the ``model``)."""
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
        outcome = book.add(draft, actor, status=status, on_conflict="propose")
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
