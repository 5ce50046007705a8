"""A tool call run beside its progress: reports coalesced to the newest, the last one before the
result kept, and a stopped call cancelled without waiting for it to unwind."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import cast

from agent_core.chat.progress_relay import ProgressRelay
from agent_core.tools.progress import ToolProgress, current_progress_listener

WAIT = 10.0


def report(step: float, total: float | None = None, message: str = "") -> None:
    listener = current_progress_listener()
    assert listener is not None, "the call runs without a progress listener"
    listener(ToolProgress(step, total, message))


def test_reports_reach_the_events_and_the_result_stays_on_the_task() -> None:
    async def scenario() -> tuple[list[ToolProgress], str]:
        first_seen, go_on = asyncio.Event(), asyncio.Event()

        async def call() -> str:
            report(1, 2, "copying")
            await asyncio.wait_for(go_on.wait(), WAIT)
            report(2, 2, "done")
            return "copied"

        relay = ProgressRelay(call(), min_interval=0)
        seen = []
        async for progress in relay.events():
            seen.append(progress)
            first_seen.set()
            go_on.set()
        return seen, await relay.task

    seen, result = asyncio.run(scenario())
    assert seen == [ToolProgress(1, 2, "copying"), ToolProgress(2, 2, "done")]
    assert result == "copied"


def test_a_burst_of_reports_is_coalesced_to_the_newest() -> None:
    async def scenario() -> list[ToolProgress]:
        async def call() -> None:
            for step in range(10_000):
                report(step, 10_000)  # no await between them: one burst

        relay = ProgressRelay(call(), min_interval=60)
        return [progress async for progress in relay.events()]

    seen = asyncio.run(scenario())
    assert seen == [ToolProgress(9_999, 10_000)]


def test_reports_of_a_call_made_outside_the_relay_are_not_relayed() -> None:
    async def scenario() -> bool:
        async def call() -> bool:
            return current_progress_listener() is not None

        relay = ProgressRelay(call())
        outside = current_progress_listener() is None
        assert [p async for p in relay.events()] == []
        return outside and await relay.task

    assert asyncio.run(scenario())


def test_leaving_the_events_cancels_the_call_without_waiting_for_it() -> None:
    async def scenario() -> tuple[bool, bool]:
        cancelled, unwound = asyncio.Event(), asyncio.Event()
        release = asyncio.Event()

        async def call() -> None:
            report(1)
            try:
                await asyncio.wait_for(asyncio.Event().wait(), WAIT)
            except asyncio.CancelledError:
                cancelled.set()
                await asyncio.wait_for(release.wait(), WAIT)  # a slow unwind (a bounded write)
                unwound.set()
                raise

        relay = ProgressRelay(call())
        events = cast(AsyncGenerator[ToolProgress, None], relay.events())
        assert await anext(events) == ToolProgress(1)
        await events.aclose()  # the reply stopped: returns while the call still unwinds
        await asyncio.wait_for(cancelled.wait(), WAIT)
        still_unwinding = not unwound.is_set() and not relay.task.done()
        release.set()
        await asyncio.wait_for(unwound.wait(), WAIT)
        await asyncio.wait({relay.task}, timeout=WAIT)
        return still_unwinding, relay.task.cancelled()

    still_unwinding, cancelled = asyncio.run(scenario())
    assert still_unwinding and cancelled


def test_abandon_leaves_a_finished_call_alone() -> None:
    async def scenario() -> str:
        async def call() -> str:
            return "done"

        relay = ProgressRelay(call())
        await relay.task
        relay.abandon()
        return await relay.task

    assert asyncio.run(scenario()) == "done"
