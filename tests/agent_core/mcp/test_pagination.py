"""One pagination helper for every MCP list: cursors followed to the end, and a listing that never ends is cut."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from agent_core.mcp._pagination import MAX_PAGES, all_pages


@dataclass(frozen=True)
class FakePage:
    items: tuple[str, ...]
    next_cursor: str | None


def test_pages_are_followed_by_their_cursor_until_the_last_one() -> None:
    server = {None: FakePage(("a", "b"), "2"), "2": FakePage(("c",), "3"), "3": FakePage(("d",), None)}
    asked: list[str | None] = []

    async def fetch(cursor: str | None) -> FakePage:
        asked.append(cursor)
        return server[cursor]

    pages = asyncio.run(all_pages(fetch))
    assert [item for page in pages for item in page.items] == ["a", "b", "c", "d"]
    assert asked == [None, "2", "3"]


def test_a_listing_that_never_ends_stops_after_max_pages() -> None:
    async def fetch(cursor: str | None) -> FakePage:
        return FakePage(("again",), "more")

    assert len(asyncio.run(all_pages(fetch))) == MAX_PAGES
