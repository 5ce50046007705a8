"""Branches of a chat: an edited message keeps its earlier versions, each with the replies that
followed it, and the chat shows one version at a time (LM Studio's and Open WebUI's ◀ 1/2 ▶).

The store keeps every message with the one before it in its conversation (``parent_id``):
versions of a message share it. What the transcript shows is the conversation the model is sent
(the messages not replaced) and, dimmed, the answers a Regenerate replaced in it; the branches
set aside are not shown until the user switches to them (see ``store._chat_branches``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from agent_core.errors import ContextDeskError
from agent_core.store.chats import StoredMessage

__all__ = ["Versions", "shown_messages", "switch_target", "versions_of"]


@dataclass(frozen=True)
class Versions:
    """The versions of one user message, oldest first, and the one the chat shows."""

    ids: tuple[int, ...]
    shown: int

    @property
    def position(self) -> int:
        """1 for the oldest version."""
        return self.ids.index(self.shown) + 1

    @property
    def count(self) -> int:
        return len(self.ids)


def versions_of(messages: Sequence[StoredMessage]) -> dict[int, Versions]:
    """For each user message that has other versions (it was edited, or is an edit), all its
    versions; messages saved before branches were kept have none."""
    groups: dict[int, list[StoredMessage]] = defaultdict(list)
    for message in messages:
        if message.role == "user" and message.parent_id is not None:
            groups[message.parent_id].append(message)
    found: dict[int, Versions] = {}
    for versions in groups.values():
        if len(versions) < 2:
            continue
        # The one in the conversation; in a branch set aside, the one it was left on (set aside last).
        shown = next((v for v in versions if not v.replaced), max(versions, key=lambda v: v.aside))
        group = Versions(tuple(v.id for v in versions), shown.id)
        found.update(dict.fromkeys(group.ids, group))
    return found


def shown_messages(messages: Sequence[StoredMessage]) -> list[StoredMessage]:
    """What the transcript shows, in order: the conversation, its summaries, and the answers a
    Regenerate replaced in it (dimmed); not the branches set aside. Chats saved before branches
    were kept show every message, as they did."""
    shown: list[StoredMessage] = []
    shown_ids: set[int] = set()
    for message in messages:
        visible = (
            message.role == "summary"
            or not message.replaced
            or message.parent_id is None  # saved before branches: shown as it was
            or (message.aside == 0 and message.parent_id in shown_ids)  # a replaced answer here
        )
        if visible and message.aside == 0:
            shown.append(message)
            shown_ids.add(message.id)
    return shown


def switch_target(
    messages: Sequence[StoredMessage], message_id: int, step: int
) -> tuple[StoredMessage, StoredMessage]:
    """(the version shown, the version ``step`` places from it: -1 the one before, +1 the one
    after) of the user message ``message_id``.

    Raises:
        ContextDeskError: the message has no version there, is not shown, or a compaction summary
            stands for it (switching would change what the summary stands for).
    """
    by_id = {m.id: m for m in messages}
    versions = versions_of(messages).get(message_id)
    if versions is None:
        raise ContextDeskError("this message has no other version: edit it to make one")
    shown = by_id[versions.shown]
    if shown.replaced:
        raise ContextDeskError("that message is on a branch not shown: switch to its branch first")
    index = versions.position - 1 + step
    if not 0 <= index < versions.count:
        raise ContextDeskError(f"there is no version {index + 1} of this message (it has {versions.count})")
    covered = [m for m in messages if m.role == "summary" and (m.covers_until or 0) >= shown.id]
    if covered:
        raise ContextDeskError(
            "a compaction summary stands for this message: undo the compaction to switch its versions"
        )
    return shown, by_id[versions.ids[index]]
