"""Async streams read side by side: the items of several async iterators as each produces them.

Used wherever independent runs report through one stream: the sub-agents one chat turn starts,
the items of a workflow iteration that run in parallel.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import TypeVar

__all__ = ["merged"]

T = TypeVar("T")

_ENDED = object()  # one stream has no more items


async def merged(streams: Sequence[AsyncIterator[T]]) -> AsyncIterator[T]:
    """The items of ``streams`` as each produces them; an error or a cancel stops them all."""
    queue: asyncio.Queue[object] = asyncio.Queue()

    async def pump(stream: AsyncIterator[T]) -> None:
        try:
            async for item in stream:
                queue.put_nowait(item)
        except Exception as error:  # noqa: BLE001 - handed to the consumer, which raises it
            queue.put_nowait(_Failed(error))
        finally:
            queue.put_nowait(_ENDED)

    tasks = [asyncio.create_task(pump(stream)) for stream in streams]
    open_streams = len(tasks)
    try:
        while open_streams:
            item = await queue.get()
            if item is _ENDED:
                open_streams -= 1
            elif isinstance(item, _Failed):
                raise item.error
            else:
                yield item  # type: ignore[misc]  # put there by pump as a T
    finally:
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)


class _Failed:
    """A stream's error, carried to the consumer (an item may itself be an exception)."""

    def __init__(self, error: Exception) -> None:
        self.error = error
