"""A chat's items, for ChatController: rules and references added, removed or pinned by the user
(selection learns from it), and MCP resources attached as references."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import SignalInstance

from agent_core.chat.attached_updates import subscribe
from agent_core.context.items import ItemRef, SessionItem
from desktop.bridge import CoreBridge

if TYPE_CHECKING:
    from agent_core.chat.session import ChatSession
    from agent_core.mcp.types import ResourceContent, ResourceInfo

__all__ = ["ChatItems", "ResourceReader"]


class ResourceReader(Protocol):
    """Reads an MCP resource (the agent's ``McpManager``)."""

    async def read_resource(self, server: str, uri: str) -> ResourceContent: ...


class ChatItems:
    """Part of ChatController (a mixin)."""

    bridge: CoreBridge
    session: ChatSession
    items_changed: SignalInstance

    if TYPE_CHECKING:

        def _report(self, error: BaseException) -> None: ...

    def items(self) -> tuple[SessionItem, ...]:
        return self.session.items

    def add_item(self, ref: ItemRef) -> None:
        """The user adds ``ref``; selection learns the last message needed it (if it missed it)."""
        self.bridge.call(
            lambda: self.session.add_item(ref, learn=True),
            on_result=lambda _: self.items_changed.emit(),
            on_error=self._report,
        )

    def attach_resource(
        self,
        reader: ResourceReader,
        resource: ResourceInfo,
        on_done: Callable[[ItemRef], None],
        on_error: Callable[[BaseException], None],
    ) -> None:
        """Read an MCP resource (on the core thread) and attach its text to this chat as a reference."""

        async def run() -> ItemRef:
            from agent_core.mcp.errors import McpServerError

            # Subscribed first, so that no update falls between the read and the subscription.
            seen = await subscribe(reader, resource.server, resource.uri)
            content = await reader.read_resource(resource.server, resource.uri)
            if not content.text.strip():
                raise McpServerError(
                    resource.server,
                    f"{resource.uri} has no text to attach (it is empty or binary): choose a text resource.",
                )
            title = resource.title or resource.name or resource.description
            return await asyncio.to_thread(
                self.session.attach_resource, resource.server, resource.uri, content.text, title, seen
            )

        def done(ref: ItemRef) -> None:
            self.items_changed.emit()
            on_done(ref)

        self.bridge.submit(run(), done, on_error)

    def attach_resource_text(
        self, server: str, uri: str, text: str, on_error: Callable[[BaseException], None]
    ) -> None:
        """Attach a resource a tool result carried (its text is here already) as a reference."""
        self.bridge.call(
            self.session.attach_resource,
            server,
            uri,
            text,
            on_result=lambda _ref: self.items_changed.emit(),
            on_error=on_error,
        )

    def remove_item(self, ref: ItemRef) -> None:
        """The user removes ``ref``; selection learns the last message did not need it."""
        self.bridge.call(
            lambda: self.session.remove_item(ref, learn=True),
            on_result=lambda _: self.items_changed.emit(),
            on_error=self._report,
        )

    def pin_item(self, ref: ItemRef, pinned: bool = True) -> None:
        self.bridge.call(
            self.session.pin_item,
            ref,
            pinned,
            on_result=lambda _: self.items_changed.emit(),
            on_error=self._report,
        )
