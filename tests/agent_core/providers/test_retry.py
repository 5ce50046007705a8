from __future__ import annotations

import pytest

from agent_core.errors import (
    ProviderAuthError,
    ProviderRateLimitError,
    ProviderUnavailableError,
)
from agent_core.providers.base import (
    ChatMessage,
    ChatRequest,
    FinishEvent,
    GenerationSettings,
    RetryEvent,
    StreamEvent,
    TextDelta,
)
from agent_core.providers.retry import retry_delay, stream_with_retries
from agent_core.providers.scripted import ScriptedProvider

pytestmark = pytest.mark.anyio

REQUEST = ChatRequest(messages=[ChatMessage("user", "hi")], settings=GenerationSettings(model="scripted"))


class FakeSleep:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


async def collect(provider: ScriptedProvider, sleep: FakeSleep, **kwargs: float) -> list[StreamEvent]:
    return [
        event
        async for event in stream_with_retries(provider, REQUEST, sleep=sleep, jitter=lambda: 0.5, **kwargs)  # type: ignore[arg-type]
    ]


async def test_a_rate_limit_before_output_is_retried_after_retry_after() -> None:
    provider = ScriptedProvider()
    limited = ProviderRateLimitError("slow down", retry_after=7)
    provider.enqueue_error(limited)
    provider.enqueue_reply("ok")
    sleep = FakeSleep()
    events = await collect(provider, sleep)
    assert events[0] == RetryEvent(attempt=1, delay=7, error=limited)
    assert TextDelta("ok") in events and events[-1] == FinishEvent("stop")
    assert sleep.delays == [7]
    assert len(provider.requests) == 2


async def test_backoff_grows_exponentially_with_jitter() -> None:
    provider = ScriptedProvider()
    for _ in range(3):
        provider.enqueue_error(ProviderUnavailableError("down"))
    provider.enqueue_reply("ok")
    sleep = FakeSleep()
    events = await collect(provider, sleep, base_delay=1.0)
    assert [e.attempt for e in events if isinstance(e, RetryEvent)] == [1, 2, 3]
    assert sleep.delays == [0.75, 1.5, 3.0]


async def test_the_last_attempts_error_is_raised() -> None:
    provider = ScriptedProvider()
    for _ in range(2):
        provider.enqueue_error(ProviderUnavailableError("still down"))
    sleep = FakeSleep()
    with pytest.raises(ProviderUnavailableError, match="still down"):
        await collect(provider, sleep, max_attempts=2)
    assert len(sleep.delays) == 1


async def test_non_retryable_errors_are_raised_at_once() -> None:
    provider = ScriptedProvider()
    provider.enqueue_error(ProviderAuthError("bad key"))
    sleep = FakeSleep()
    with pytest.raises(ProviderAuthError):
        await collect(provider, sleep)
    assert sleep.delays == []


async def test_errors_after_output_started_are_not_retried() -> None:
    provider = ScriptedProvider()
    provider.enqueue_error(ProviderUnavailableError("dropped"), chunks_before=["Hal"])
    provider.enqueue_reply("never used")
    sleep = FakeSleep()
    seen: list[StreamEvent] = []
    with pytest.raises(ProviderUnavailableError):
        async for event in stream_with_retries(provider, REQUEST, sleep=sleep):
            seen.append(event)
    assert seen == [TextDelta("Hal")]
    assert provider.pending_steps == 1


async def test_a_retry_after_longer_than_the_limit_is_raised() -> None:
    provider = ScriptedProvider()
    provider.enqueue_error(ProviderRateLimitError("quota", retry_after=3600))
    with pytest.raises(ProviderRateLimitError):
        await collect(provider, FakeSleep(), max_retry_after=60)


def test_retry_delay_is_capped() -> None:
    error = ProviderUnavailableError("down")
    assert retry_delay(error, 10, base_delay=1, max_delay=30, jitter=lambda: 1.0) == 30
