"""Attached MCP resources kept current: subscribed where the server offers it, and read again
before a message when the server said they changed.

The chat keeps an attached resource's text as it read (so a chat reads the same tomorrow); a
subscription only tells that the resource changed. Before each message the changed ones are read
again, so the request uses the new text, and the count of updates goes with the item, so View
Context says it changed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol, runtime_checkable

from agent_core.errors import ContextDeskError
from agent_core.store.chat_state import AttachedResource

__all__ = ["ResourceText", "ResourceUpdates", "refreshed", "resource_source", "subscribe"]

logger = logging.getLogger(__name__)


class ResourceText(Protocol):
    @property
    def text(self) -> str: ...


@runtime_checkable
class ResourceUpdates(Protocol):
    """What the tools runtime offers when its servers can report resource changes (the MCP manager)."""

    def resource_version(self, server: str, uri: str) -> int | None: ...

    async def subscribe_resource(self, server: str, uri: str) -> bool: ...

    async def read_resource(self, server: str, uri: str) -> ResourceText: ...


def resource_source(tools: object) -> ResourceUpdates | None:
    """The runtime under ``tools`` that can report resource changes: the sub-agent and workflow
    wrappers keep the one they wrap as ``inner``."""
    for _ in range(8):  # a few wrappers at most; never a loop
        if isinstance(tools, ResourceUpdates):
            return tools
        tools = getattr(tools, "inner", None)
    return None


async def subscribe(tools: object, server: str, uri: str) -> int | None:
    """Subscribe to ``uri`` when ``tools`` and its server can; the server's update count now, or
    None (no subscription: the resource stays as it read)."""
    source = resource_source(tools)
    if source is None:
        return None
    try:
        if not await source.subscribe_resource(server, uri):
            return None
    except ContextDeskError as error:
        logger.info("could not subscribe to %s on %s: %s", uri, server, error)
        return None
    return source.resource_version(server, uri)


async def refreshed(
    tools: object, resources: Sequence[AttachedResource]
) -> tuple[AttachedResource, ...] | None:
    """``resources`` with the changed ones read again; None when none changed.

    A resource whose subscription is gone (its server restarted) is subscribed again; one that
    cannot be read now keeps its last text (the message goes on with it).
    """
    source = resource_source(tools)
    if source is None:
        return None
    updated: list[AttachedResource] = []
    changed = False
    for resource in resources:
        version = source.resource_version(resource.server, resource.uri)
        if version is None:
            version = await subscribe(source, resource.server, resource.uri)
        if version is None or version == resource.seen_version:
            updated.append(resource)
            continue
        try:
            content = await source.read_resource(resource.server, resource.uri)
        except ContextDeskError as error:
            logger.warning("could not read the updated %s on %s: %s", resource.uri, resource.server, error)
            updated.append(resource)
            continue
        fresh = content.text != resource.text
        updated.append(
            replace(
                resource,
                text=content.text,
                seen_version=version,
                updates=resource.updates + (1 if fresh else 0),
            )
        )
        changed = True
    return tuple(updated) if changed else None
