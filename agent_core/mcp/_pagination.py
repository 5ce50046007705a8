"""Following an MCP list's cursor until the last page: one helper for tools, resources and prompts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

__all__ = ["MAX_PAGES", "Page", "all_pages"]

MAX_PAGES = 100  # a server whose listing never ends cannot hang us


class Page(Protocol):
    @property
    def next_cursor(self) -> str | None: ...


PageT = TypeVar("PageT", bound=Page)


async def all_pages(fetch: Callable[[str | None], Awaitable[PageT]]) -> list[PageT]:
    """Every page of a paginated list: ``fetch(cursor)`` gets one (None: the first), at most ``MAX_PAGES``.

    Raises:
        whatever ``fetch`` raises.
    """
    pages: list[PageT] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await fetch(cursor)
        pages.append(page)
        cursor = page.next_cursor
        if cursor is None:
            break
    return pages
