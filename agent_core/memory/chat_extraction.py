"""Memories proposed from a user's message, always with consent and provenance: an explicit
"remember that …" at the start of it, and, when the agent turns extraction on, facts found in it:
by the offline rules (``extraction: rules``), or by the chat's own model (``extraction: model``)
when it is capable, that is, not the bundled offline model (``local`` provider), which gets the
rules instead. They are proposals, accepted by the user (or at once with ``memory.autoAccept``).

Whether the rules or the model look is decided once per message, in :func:`extraction_for`, and
:func:`extract_around` carries it out around the chat's reply (the chat reaches it through
``chat_memories.ChatMemories``).
``/remember`` and "Remember this" save at once: see ``chat_memories``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import Literal, TypeVar

from agent_core.agent.agent import Agent
from agent_core.agent.schema import MemoryConfig
from agent_core.errors import ContextDeskError, ProviderError
from agent_core.memory.book import MemoryBook, MemoryDraft, WriteOutcome
from agent_core.memory.extraction_model import MAX_MESSAGE_CHARS, extract_with_model
from agent_core.memory.extraction_rules import Proposal, explicit_request, extract_memories
from agent_core.memory.records import Actor, Provenance
from agent_core.memory.service import MemoryService
from agent_core.providers.base import Provider
from agent_core.providers.local_llama import LocalLlamaProvider
from indexer import IndexerError

__all__ = [
    "ChatOfMessage",
    "Extraction",
    "FoundMemories",
    "MemoryWrites",
    "ProviderResolver",
    "asks_model",
    "extract_around",
    "extraction_for",
    "model_proposals",
    "proposals_in",
    "propose_from_message",
]

logger = logging.getLogger(__name__)

# (provider:model) -> (provider, model id within it). Raises a ContextDeskError when it cannot.
ProviderResolver = Callable[[str], tuple[Provider, str]]

Event = TypeVar("Event")


@dataclass(frozen=True)
class ChatOfMessage:
    """Where a user's message was said and its memories go: the app's memories (None: not
    available), the chat's agent and memory settings, the chat and the message's id."""

    service: MemoryService | None
    agent: Agent
    config: MemoryConfig
    session_id: str
    message_id: int


@dataclass(frozen=True)
class MemoryWrites:
    """What a message wrote: outcomes (proposed, saved, merged…) and notes on what was not saved.
    False when there is nothing to tell."""

    outcomes: tuple[WriteOutcome, ...] = ()
    notes: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.outcomes or self.notes)


def proposals_in(text: str, config: MemoryConfig) -> list[Proposal]:
    """What the offline rules find in the user's message ``text``: an explicit request always;
    other stated facts when ``memory.extraction`` is on. Quick, and needs no model."""
    explicit = explicit_request(text)
    if explicit is not None:
        return [explicit]
    return extract_memories(text) if config.extraction != "off" else []


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


@dataclass(frozen=True)
class Extraction:
    """Who looks for memories in one message: the offline rules, before the reply (``rules``,
    possibly empty), or the chat's model, alongside it (``model``: its provider and model id)."""

    rules: tuple[Proposal, ...] = ()
    model: tuple[Provider, str] | None = None


def extraction_for(
    text: str, config: MemoryConfig, resolve: ProviderResolver | None, model_ref: str
) -> Extraction:
    """The one decision of rules or model for the user's message ``text``, by the chat's memory
    settings and its model ``model_ref`` (see :func:`asks_model`). A model that cannot be set up
    leaves it to the rules (the reply says what is wrong with it)."""
    if not config.enabled:
        return Extraction()
    if config.extraction == "model" and resolve is not None:
        try:
            provider, model_id = resolve(model_ref)
        except ContextDeskError:
            provider = None
        if provider is not None and asks_model(text, config, provider, model_id):
            return Extraction(model=(provider, model_id))
    return Extraction(rules=tuple(proposals_in(text, config)))


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


async def extract_around(
    chat: ChatOfMessage,
    text: str,
    previous: str | None,
    resolve: ProviderResolver | None,
    model_ref: str,
    reply: AsyncGenerator[Event, None],
) -> AsyncGenerator[Event | MemoryWrites, None]:
    """``reply``'s events, with what the user's message ``text`` (``previous``: the user's message
    before it) wrote to memories: the rules' writes before the reply, or, when the chat's model
    ``model_ref`` is asked (:func:`extraction_for`, the one decision), its writes after the reply,
    which it never delays (at most the extraction's timeout later). Closing this closes ``reply``
    and stops the model's look. A memory fault never stops the reply: it is logged and told in a
    note."""
    plan = extraction_for(text, chat.config, resolve, model_ref) if chat.service is not None else Extraction()
    model: asyncio.Task[FoundMemories] | None = None
    if plan.model is not None:
        provider, model_id = plan.model
        look = model_proposals(provider, model_id, text, previous)
        model = asyncio.create_task(look, name=f"memory extraction {chat.session_id}")
    try:
        if written := await _write(chat, plan.rules):
            yield written
        async with aclosing(reply) as events:
            async for event in events:
                yield event
        if model is not None:
            found = await model
            if written := await _write(chat, found.proposals, actor=found.actor, notes=found.notes):
                yield written
    finally:
        if model is not None:
            model.cancel()


async def _write(
    chat: ChatOfMessage,
    proposals: Sequence[Proposal],
    *,
    actor: Actor = "extractor",
    notes: tuple[str, ...] = (),
) -> MemoryWrites:
    """``proposals`` written through the agent's book; ``notes`` come first in what it says."""
    service, config = chat.service, chat.config
    if not proposals or service is None or not config.enabled:
        return MemoryWrites(notes=notes)  # most messages: no model, no database
    try:
        book = await asyncio.to_thread(service.book_for, chat.agent)
        written = await asyncio.to_thread(
            propose_from_message,
            book,
            config,
            proposals,
            session_id=chat.session_id,
            message_id=chat.message_id,
            actor=actor,
        )
    except (ContextDeskError, IndexerError) as error:
        logger.warning("could not propose memories from the message: %s", error)
        return MemoryWrites(notes=(*notes, f"No memory was proposed: {error}"))
    return MemoryWrites(written.outcomes, (*notes, *written.notes))
