"""A server's changes: its list-changed notifications, resource subscriptions and the refreshes
they cause."""

from __future__ import annotations

import asyncio

import mcp_types
from mcp import Client
from mcp.client.subscriptions import ResourceUpdated, ServerEvent
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agent_core.mcp._connection_state import MAX_TOOLS_PER_SERVER
from agent_core.mcp._listing import Listing
from agent_core.mcp._live import ChangeWatcher
from agent_core.mcp.errors import SERVER_ERRORS
from agent_core.mcp.types import ServerState

__all__ = ["Changes"]

MAX_SUBSCRIPTIONS = 100  # resources one server keeps current (each one a line in a small dict)


class Changes(Listing):
    """Keeps the server's tools and subscribed resources current."""

    def _watch_changes(self, client: Client) -> None:
        """From 2026-07-28 on, change notifications come only on a stream the client opens."""
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            self._watcher = ChangeWatcher(client, self._on_change_event, self._log)
            self._watcher.listen(self._resource_versions)

    def _on_change_event(self, event: ServerEvent) -> None:
        self._note_change(event.uri if isinstance(event, ResourceUpdated) else None)

    async def _on_server_notification(self, message: mcp_types.ServerNotification | Exception) -> None:
        """Change notifications of older protocol revisions; called by the SDK's reader, so it only
        notes them and returns."""
        if isinstance(
            message,
            mcp_types.ToolListChangedNotification
            | mcp_types.PromptListChangedNotification
            | mcp_types.ResourceListChangedNotification,
        ):
            self._note_change()
        elif isinstance(message, mcp_types.ResourceUpdatedNotification):
            self._note_change(message.params.uri)

    def _note_change(self, updated_uri: str | None = None) -> None:
        if updated_uri is not None:
            if updated_uri not in self._resource_versions:
                return  # only what was subscribed: a server cannot grow the dict
            self._resource_versions[updated_uri] += 1
        self._lists.request()

    async def _refresh_lists(self) -> None:
        """Re-list the tools and report the status, which front ends redraw (and re-index) from."""
        client = self._client
        if client is None or self._state is not ServerState.READY:
            return
        try:
            async with asyncio.timeout(self.config.call_timeout_seconds):
                tools = await self._list_tools(client)
        except SERVER_ERRORS as error:
            self._log.append(f"(ContextDesk) re-listing the tools after a change failed: {error}")
            return
        if self._client is client and self._state is ServerState.READY:
            self._tools = tools[:MAX_TOOLS_PER_SERVER]
            self._set_state(ServerState.READY, self._too_many_tools(len(tools)))

    async def subscribe_resource(self, uri: str) -> bool:
        """Ask the server to report changes of ``uri``; False when it does not offer subscriptions.

        Raises:
            McpServerError: the server is not ready or refused the subscription.
        """
        client = self._ready_client()
        offered = client.server_capabilities.resources
        if offered is None or not offered.subscribe:
            return False
        if uri in self._resource_versions:
            return True
        if len(self._resource_versions) >= MAX_SUBSCRIPTIONS:
            return False
        if self._watcher is not None:
            self._resource_versions[uri] = 0
            self._watcher.listen(self._resource_versions)
            return True
        await self._request(
            f"subscribing to {uri}", lambda c: c.session.send_request(_subscribe(uri), mcp_types.EmptyResult)
        )
        self._resource_versions[uri] = 0
        return True

    def resource_version(self, uri: str) -> int | None:
        """How many updates of a subscribed ``uri`` arrived (None when it is not subscribed)."""
        return self._resource_versions.get(uri)


# resources/subscribe left the protocol in 2026-07-28 (the SDK's helper for it warns so); it is
# sent only to servers of older revisions, which have it.


def _subscribe(uri: str) -> mcp_types.SubscribeRequest:
    return mcp_types.SubscribeRequest(params=mcp_types.SubscribeRequestParams(uri=uri))
