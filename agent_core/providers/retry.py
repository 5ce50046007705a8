"""Retry a provider stream on retryable errors, as long as no output has been shown yet."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable

from agent_core.errors import ProviderError
from agent_core.providers._common import aclosing_iter
from agent_core.providers.base import ChatRequest, Provider, RetryEvent, StreamEvent, TextDelta, ToolCallEvent

__all__ = ["retry_delay", "stream_with_retries"]

Sleep = Callable[[float], Awaitable[None]]


def retry_delay(
    error: ProviderError,
    attempt: int,
    *,
    base_delay: float = 1.0,
    max_delay: float = 30.0,
    jitter: Callable[[], float] = random.random,
) -> float:
    """Seconds to wait after failed attempt number ``attempt`` (1-based).

    The server's ``retry_after`` wins when given; otherwise exponential backoff with "equal jitter":
    half the backoff fixed, half random, so many clients do not retry in lockstep.
    """
    if error.retry_after is not None:
        return max(0.0, error.retry_after)
    backoff = min(max_delay, base_delay * 2.0 ** (attempt - 1))
    return backoff / 2 + jitter() * backoff / 2


async def stream_with_retries(
    provider: Provider,
    request: ChatRequest,
    *,
    max_attempts: int = 4,
    base_delay: float = 1.0,
    max_delay: float = 30.0,
    max_retry_after: float = 120.0,
    sleep: Sleep = asyncio.sleep,
    jitter: Callable[[], float] = random.random,
) -> AsyncIterator[StreamEvent]:
    """Yield ``provider.stream(request)``'s events, retrying retryable errors before any output.

    Before each new attempt it yields a ``RetryEvent`` whose ``attempt`` is the number of the attempt
    that failed (1-based), then waits ``delay`` seconds. Once a text delta or tool call has been
    yielded the reply cannot be restarted cleanly, so errors are re-raised from then on.

    Raises:
        ProviderError: a non-retryable error, an error after output started, the last attempt's
            error, or a ``retry_after`` longer than ``max_retry_after``.
    """
    attempt = 1
    while True:
        output_started = False
        failure: ProviderError | None = None
        try:
            async with aclosing_iter(provider.stream(request)) as events:
                async for event in events:
                    if isinstance(event, TextDelta | ToolCallEvent):
                        output_started = True
                    yield event
            return
        except ProviderError as error:
            if output_started or not error.retryable or attempt >= max_attempts:
                raise
            if error.retry_after is not None and error.retry_after > max_retry_after:
                raise
            failure = error
        delay = retry_delay(failure, attempt, base_delay=base_delay, max_delay=max_delay, jitter=jitter)
        yield RetryEvent(attempt=attempt, delay=delay, error=failure)
        await sleep(delay)
        attempt += 1
