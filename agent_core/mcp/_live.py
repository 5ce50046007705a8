"""A server's change notifications, turned into few refreshes.

A server may send ``notifications/tools/list_changed`` (or the prompt and resource ones) as often as
it likes; each asks for a re-list and a status report that every front end redraws and re-indexes
from. The refresher runs at most one refresh at a time and at most one per ``min_interval`` seconds:
notifications arriving meanwhile fold into the next one, so a flood costs a few refreshes, not
thousands.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection

from mcp import Client
from mcp.client.subscriptions import ListenNotSupportedError, ServerEvent, SubscriptionLost
from mcp.shared.exceptions import MCPError

from agent_core.mcp._logs import LogBuffer

__all__ = ["ChangeRefresher", "ChangeWatcher"]

logger = logging.getLogger(__name__)

MIN_REFRESH_INTERVAL = 0.5


class ChangeRefresher:
    """Calls ``refresh`` after change notifications, coalesced (see the module docstring)."""

    def __init__(
        self, refresh: Callable[[], Awaitable[None]], min_interval: float = MIN_REFRESH_INTERVAL
    ) -> None:
        self._refresh = refresh
        self._min_interval = min_interval
        self._pending = False
        self._task: asyncio.Task[None] | None = None
        self._last = float("-inf")  # when the last refresh started (loop time)
        self.refreshes = 0  # how many refreshes ran (the flood test reads it)

    def request(self) -> None:
        """Note a change; a refresh follows soon. Never blocks (called from the SDK's reader)."""
        self._pending = True
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="mcp-list-refresh")

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while self._pending:
            # Rate limit: a server sending changes without pause gets one refresh per interval.
            if (hold := self._last + self._min_interval - loop.time()) > 0:
                await asyncio.sleep(hold)
            self._pending = False
            self._last = loop.time()
            try:
                await self._refresh()
            except Exception:  # top-level handler of the refresh task: the server stays usable
                logger.exception("refreshing an MCP server's lists failed")
            self.refreshes += 1

    def close(self) -> None:
        """Drop a refresh in progress (the connection is ending)."""
        self._pending = False
        if self._task is not None:
            self._task.cancel()


class ChangeWatcher:
    """The ``subscriptions/listen`` stream of a 2026-07-28 connection, where change notifications
    come only to a client that listens (older revisions send them unasked; see ``_connection``).

    The stream's filter is fixed when it opens, so subscribing to one more resource opens a new
    stream (``listen``) and closes the old one; a lost stream is reported in the server's log and
    not re-opened by itself (the next subscription or a restart opens one).
    """

    def __init__(self, client: Client, on_event: Callable[[ServerEvent], None], log: LogBuffer) -> None:
        self._client = client
        self._on_event = on_event
        self._log = log
        self._task: asyncio.Task[None] | None = None

    def listen(self, uris: Collection[str]) -> None:
        """(Re)open the stream for the list changes and the resources ``uris``."""
        self.close()
        self._task = asyncio.create_task(self._run(sorted(uris)), name="mcp-listen")

    async def _run(self, uris: list[str]) -> None:
        try:
            async with self._client.listen(
                tools_list_changed=True,
                prompts_list_changed=True,
                resources_list_changed=True,
                resource_subscriptions=uris,
            ) as subscription:
                async for event in subscription:
                    self._on_event(event)
        except (SubscriptionLost, ListenNotSupportedError, MCPError, TimeoutError) as error:
            self._log.append(f"(ContextDesk) change notifications stopped: {error}")

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
