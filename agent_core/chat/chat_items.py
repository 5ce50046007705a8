"""The items of a chat: the rules, references, tools and attached MCP resources every message of
it uses (always and manual), what the user added, removed or pinned, what selection learns from
those corrections, and the tools the user allowed for the rest of the chat."""

from __future__ import annotations

import logging
from dataclasses import replace

from agent_core.agent.items import DocumentItem
from agent_core.agent.schema import IncludeMode
from agent_core.chat.attached_updates import refreshed
from agent_core.chat.chat_record import ChatRecord
from agent_core.context.items import ItemRef, SessionItem
from agent_core.context.session_context import effective_session_items
from agent_core.errors import ContextDeskError
from agent_core.store.chat_state import AttachedResource

__all__ = ["ChatItems"]

logger = logging.getLogger(__name__)


class ChatItems(ChatRecord):
    """What a chat holds besides its messages, and the user's changes to it."""

    @property
    def items(self) -> tuple[SessionItem, ...]:
        """The items every message of this chat uses (always and manual)."""
        return effective_session_items(
            self._record.context_items,
            self._record.excluded_items,
            self.agent,
            self.services.tools.tools(),
            self.attached_resources(),
        )

    def attached_resources(self) -> dict[ItemRef, DocumentItem]:
        """MCP resources attached to this chat as references, as they last read."""
        return {
            resource.ref: DocumentItem(
                kind="reference",
                name=resource.uri,
                description=_attached_description(resource),
                text=resource.text,
            )
            for resource in self._record.attached_resources
        }

    def attach_resource(
        self, server: str, uri: str, text: str, title: str = "", seen_version: int | None = None
    ) -> ItemRef:
        """Attach an MCP resource's text to the chat as a reference (kept as read now);
        ``seen_version``: the server's update count when subscribed (see ``attached_updates``)."""
        resource = AttachedResource(server=server, uri=uri, text=text, title=title, seen_version=seen_version)
        others = tuple(r for r in self._record.attached_resources if r.ref != resource.ref)
        self._save_record(attached_resources=(*others, resource))
        self.add_item(resource.ref)
        return resource.ref

    async def _refresh_attached_resources(self) -> None:
        """Read again the attached resources their servers said changed (before the context is built)."""
        resources = self._record.attached_resources
        if resources and (updated := await refreshed(self.services.tools, resources)) is not None:
            self._save_record(attached_resources=updated)

    def add_item(self, ref: ItemRef, *, learn: bool = False) -> None:
        """Add an item to the chat (as ``manual``), whatever its include mode. ``learn``: the
        user added it by hand, so selection learns that the last message needed it."""
        if learn:
            self._learn(ref, added=True)
        if any(item.ref == ref for item in self.items):
            return
        items = (*(i for i in self._record.context_items if i.ref != ref), SessionItem(ref, "manual"))
        excluded = tuple(r for r in self._record.excluded_items if r != ref)
        self._save_record(context_items=items, excluded_items=excluded)

    def keep_pulled_item(self, ref: ItemRef, message_id: int) -> None:
        """Keep an item the model pulled in (a skill it loaded) while answering the message
        ``message_id`` in the chat, until a compaction covers that message or the user removes it."""
        held = next((item for item in self.items if item.ref == ref), None)
        if held is not None and held.loaded_at is None:
            return  # always on or added by the user: it stays anyway
        loaded = SessionItem(ref, "manual", loaded_at=message_id)  # loaded again: from this message on
        items = (*(i for i in self._record.context_items if i.ref != ref), loaded)
        excluded = tuple(r for r in self._record.excluded_items if r != ref)
        self._save_record(context_items=items, excluded_items=excluded)

    def pin_item(self, ref: ItemRef, pinned: bool = True) -> None:
        """Pin an item: it stays in the chat, in full, whatever trimming or compaction does (an
        item not yet in the chat is added)."""
        self.add_item(ref)
        stored = list(self._record.context_items)
        if all(item.ref != ref for item in stored):
            stored.append(SessionItem(ref, "always"))  # an always-mode tool that joined by itself
        items = tuple(replace(item, pinned=pinned) if item.ref == ref else item for item in stored)
        self._save_record(context_items=items)

    def remove_item(self, ref: ItemRef, *, learn: bool = False) -> None:
        """Take an item out of the chat. ``learn``: the user removed it by hand, so selection
        learns that the last message did not need it."""
        if learn:
            self._learn(ref, added=False)
        items = tuple(i for i in self._record.context_items if i.ref != ref)
        excluded = self._record.excluded_items
        self._save_record(
            context_items=items, excluded_items=excluded if ref in excluded else (*excluded, ref)
        )

    def _learn(self, ref: ItemRef, *, added: bool) -> None:
        """Keep the user's correction of the last reply's selection: an agent-mode item added
        that it did not select, or removed that it did. Anything else teaches nothing."""
        if not self._agent_mode(ref):
            return
        history = self.store.messages(self.id, current_only=True)
        context = next((m.request_context for m in reversed(history) if m.request_context), None)
        if context is None:
            return
        selected = any(i.ref == ref and i.include_mode == "agent" for i in context.items)
        if selected == added:
            return  # adding what it chose, or removing what it did not: no correction
        message = next((m.content for m in reversed(history) if m.role == "user"), "")
        if message.strip():
            self._remember_correction(ref, message, added=added)

    def _remember_correction(self, ref: ItemRef, message: str, *, added: bool) -> None:
        selector = self.services.selector
        if selector is None or selector.learned is None:
            return
        try:
            selector.learned.record(str(self.agent.root), ref, message, added=added, session_id=self.id)
        except ContextDeskError as error:
            logger.warning("could not keep what selection learned: %s", error)

    def _agent_mode(self, ref: ItemRef) -> bool:
        if ref.type == "tool":
            return any(
                t.server == ref.server and t.name == ref.name and t.include is IncludeMode.AGENT
                for t in self.services.tools.tools()
            )
        if ref.type == "skill":
            skill = self.agent.skills.get(ref.name)
            return skill is not None and skill.include is IncludeMode.AGENT
        if ref.type in ("rule", "reference") and ref.server is None:
            document = self.agent.document(ref.type, ref.name)
            return document is not None and document.include is IncludeMode.AGENT
        return False

    def readmit(self, ref: ItemRef) -> None:
        """Undo leaving ``ref`` out of this chat (e.g. a memory marked "not for this chat")."""
        self._save_record(excluded_items=tuple(r for r in self._record.excluded_items if r != ref))

    @property
    def allowed_tools(self) -> tuple[ItemRef, ...]:
        """Tools the user allowed for the rest of this chat, and those a parent chat's allow
        reaches (a sub-agent with ``approvals: inherit``)."""
        return (*self._record.allowed_tools, *self.inherited_allowed())

    def allow_tool_for_chat(self, tool: ItemRef) -> None:
        """Run ``tool`` without asking for the rest of this chat."""
        if tool not in self._record.allowed_tools:
            self._save_record(allowed_tools=(*self._record.allowed_tools, tool))


def _attached_description(resource: AttachedResource) -> str:
    """Its title, after whether the server changed it since it was attached (first: a narrow
    column still shows it)."""
    if not resource.updates:
        return resource.title
    times = "once" if resource.updates == 1 else f"{resource.updates} times"
    changed = f"Changed by the server {times} since attached"
    return f"{changed} · {resource.title}" if resource.title else changed
