"""A tool server asking for a model reply (MCP ``sampling/createMessage``), as the core sees it.

The request arrives on the server's connection, not in the chat whose tool call caused it, so a
``SamplingRouter`` (one per workspace) hands it to whoever is calling that server now: a chat
registers a handler for the length of each tool call. With no handler the request is refused
(fail closed: nobody can be asked). The router also enforces the server's token caps, so no
handler can forget them.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Literal

from agent_core.context.items import TokenUsage
from agent_core.errors import ContextDeskError

__all__ = [
    "SamplingAnswer",
    "SamplingHandler",
    "SamplingLimits",
    "SamplingMessage",
    "SamplingRefusedError",
    "SamplingRequest",
    "SamplingRouter",
    "StopReason",
]

# What is kept and shown of a server's prompt: a server is untrusted and may send megabytes.
MAX_PROMPT_CHARACTERS = 20_000
WINDOW_SECONDS = 60.0

StopReason = Literal["endTurn", "maxTokens", "stopSequence"]


@dataclass(frozen=True)
class SamplingMessage:
    role: Literal["user", "assistant"]
    text: str  # text blocks as they are; other blocks (images, audio) as a one-line note


@dataclass(frozen=True)
class SamplingRequest:
    """What a server asks the model, with ``max_tokens`` already within the server's cap."""

    server: str
    messages: tuple[SamplingMessage, ...]
    max_tokens: int
    system_prompt: str = ""
    temperature: float | None = None
    stop_sequences: tuple[str, ...] = ()
    model_hints: tuple[str, ...] = ()  # the server's model names, best first (substrings)
    requested_max_tokens: int = 0  # what the server asked for, before the cap
    # Why the router refuses it (a cap): the handler only records it, and must raise.
    refused: str = ""

    @property
    def prompt(self) -> str:
        """The messages as the user reads them, one "role: text" paragraph each, bounded."""
        text = "\n\n".join(f"{m.role}: {m.text}" for m in self.messages)
        if len(text) > MAX_PROMPT_CHARACTERS:
            return (
                text[:MAX_PROMPT_CHARACTERS] + f"\n[… {len(text) - MAX_PROMPT_CHARACTERS:,} characters more]"
            )
        return text


@dataclass(frozen=True)
class SamplingAnswer:
    text: str
    model: str  # provider:model
    stop_reason: StopReason = "endTurn"
    usage: TokenUsage = field(default_factory=TokenUsage)


class SamplingRefusedError(ContextDeskError):
    """A sampling request is not answered; the message goes back to the server as the error."""


# Answers a request, or raises SamplingRefusedError (always, for one marked ``refused``).
SamplingHandler = Callable[[SamplingRequest], Awaitable[SamplingAnswer]]


@dataclass(frozen=True)
class SamplingLimits:
    """A server's caps (``samplingMaxTokens``, ``samplingTokensPerMinute``)."""

    max_tokens: int
    tokens_per_minute: int


class SamplingRouter:
    """Hands each server's sampling requests to the handler of the tool call in progress on it."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._handlers: dict[str, list[SamplingHandler]] = {}
        self._spent: dict[str, list[tuple[float, int]]] = {}
        self._clock = clock

    @contextmanager
    def handling(self, server: str, handler: SamplingHandler) -> Iterator[None]:
        """While the block runs, ``server``'s requests go to ``handler`` (the latest one wins
        when two calls to the same server overlap)."""
        handlers = self._handlers.setdefault(server, [])
        handlers.append(handler)
        try:
            yield
        finally:
            handlers.remove(handler)

    async def answer(self, request: SamplingRequest, limits: SamplingLimits) -> SamplingAnswer:
        """The answer of the handler in charge of ``request.server``; a request over a cap goes
        to it marked ``refused``, to be recorded.

        Raises:
            SamplingRefusedError: no handler (nobody can be asked), the server's per-minute cap
                is reached, or the handler refused.
        """
        handlers = self._handlers.get(request.server)
        if not handlers:
            raise SamplingRefusedError(
                f"ContextDesk refused the sampling request of '{request.server}': it came outside a tool "
                "call of a chat, so there is no one to approve it."
            )
        request = replace(
            request,
            requested_max_tokens=request.requested_max_tokens or request.max_tokens,
            max_tokens=max(1, min(request.max_tokens, limits.max_tokens)),
        )
        try:
            reservation = self._reserve(request.server, request.max_tokens, limits.tokens_per_minute)
        except SamplingRefusedError as error:
            await handlers[-1](replace(request, refused=str(error)))  # recorded where the call is
            raise
        try:
            answer = await handlers[-1](request)
        except BaseException:
            self._settle(request.server, reservation, 0)
            raise
        used = answer.usage.total
        self._settle(request.server, reservation, used or request.max_tokens)
        return answer

    def _reserve(self, server: str, tokens: int, per_minute: int) -> tuple[float, int]:
        """Hold ``tokens`` of the server's minute; what the answer really used replaces them."""
        now = self._clock()
        spent = [entry for entry in self._spent.get(server, []) if entry[0] > now - WINDOW_SECONDS]
        self._spent[server] = spent
        used = sum(tokens for _, tokens in spent)
        if used + tokens > per_minute:
            raise SamplingRefusedError(
                f"ContextDesk refused the sampling request of '{server}': it would use {tokens:,} tokens and "
                f"{used:,} of its {per_minute:,} per minute are spent (samplingTokensPerMinute). "
                "Try again in a minute."
            )
        entry = (now, tokens)
        spent.append(entry)
        return entry

    def _settle(self, server: str, reservation: tuple[float, int], used: int) -> None:
        spent = self._spent.get(server)
        if spent is None or reservation not in spent:
            return
        spent.remove(reservation)
        if used:
            spent.append((reservation[0], used))  # kept at its own time: it leaves the minute as it would
