"""What the transcript of a chat is made of: a row (:class:`Entry`) and its kinds, the item roles
the views read, and the rows a saved message stands as (a message, its tool calls)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import IntEnum
from textwrap import shorten
from typing import Literal

from PySide6.QtCore import Qt

from agent_core.chat.branches import Versions
from agent_core.chat.events import ApprovalDecision, ApprovalRequest, PromptProgress, WorkflowProgress
from agent_core.context.items import RequestContext
from agent_core.memory.records import Memory
from agent_core.store.chats import StoredMessage, ToolCallRecord
from agent_core.subagents.runs import SubagentRun, run_of
from agent_core.tools.progress import ToolProgress

__all__ = [
    "CHOOSING_CONTEXT",
    "WAITING_FOR_MODEL",
    "Entry",
    "EntryKind",
    "MemoryRowStatus",
    "Role",
    "entries_of",
    "prompt_progress_text",
    "reply_entry",
    "workflow_progress_text",
]

#: What a reply waits for before its first words, as its row says.
CHOOSING_CONTEXT = "Choosing the context for this message…"
WAITING_FOR_MODEL = "Waiting for the model's first words…"

EntryKind = Literal["user", "assistant", "error", "tool_call", "approval", "notice", "summary", "memory"]

# A memory row's status: what the user can still do with it. "proposed": Accept / Edit / Reject;
# "remembered" (saved, or already known): Forget; the others are final.
MemoryRowStatus = Literal["proposed", "remembered", "accepted", "rejected", "forgotten", "working"]


class Role(IntEnum):
    KIND = Qt.ItemDataRole.UserRole + 1
    TEXT = Qt.ItemDataRole.UserRole + 2
    STATUS = Qt.ItemDataRole.UserRole + 3
    CONTEXT = Qt.ItemDataRole.UserRole + 4
    TOOL_CALL = Qt.ItemDataRole.UserRole + 5
    APPROVAL = Qt.ItemDataRole.UserRole + 6
    ERROR = Qt.ItemDataRole.UserRole + 7
    MESSAGE_ID = Qt.ItemDataRole.UserRole + 8
    ENTRY = Qt.ItemDataRole.UserRole + 9
    DIMMED = Qt.ItemDataRole.UserRole + 10


@dataclass(frozen=True)
class Entry:
    """One row. ``status`` is the message status, or for tools: pending, running, done, failed."""

    kind: EntryKind
    text: str = ""
    status: str = "complete"
    message_id: int | None = None
    context: RequestContext | None = None
    tool_call: ToolCallRecord | None = None
    call_id: str | None = None
    approval: ApprovalRequest | None = None
    decision: ApprovalDecision | None = None
    error: str | None = None
    message: StoredMessage | None = None  # summaries: the stored message, for editing
    covers_until: int | None = None  # summaries: the last message id they stand for
    covered: int = 0  # summaries: how many messages they stand for
    automatic: bool = False  # summaries: made by auto-compaction
    dimmed: bool = False  # covered by a newer summary: shown, but no longer sent as is
    memory: Memory | None = None  # memory rows: the memory as it now is
    replaces: str = ""  # memory rows: the words of the memory a proposal would supersede
    merged: bool = False  # memory rows: the fact was already known (its count grew)
    subagent: SubagentRun | None = None  # a sub-agent's tool call: its run, live or as saved
    activity: str = ""  # a running workflow's call: where it is ("state draft · 1 done")
    progress: ToolProgress | None = None  # a running tool call: what its server last reported
    fresh: bool = False  # summaries: just made in this window, shown open with Undo
    replaced: bool = False  # a regenerated answer or an edit took its place: kept, dimmed, not sent
    versions: Versions | None = None  # user rows: an edited message's versions (◀ 1/2 ▶)


def prompt_progress_text(event: PromptProgress) -> str:
    """ "Processing the prompt: 256 of 1,024 tokens…"; only the new tokens count when the start of
    the prompt was kept from the last request (cached)."""
    if event.cached:
        return (
            f"Processing the prompt: {event.done:,} of {event.total:,} new tokens ({event.cached:,} cached)…"
        )
    return f"Processing the prompt: {event.done:,} of {event.total:,} tokens…"


def workflow_progress_text(event: WorkflowProgress) -> str:
    """Where a running workflow is: "state draft · 1 done" (the state now running, or the last)."""
    item = f" ({shorten(str(event.item), 30)})" if event.item is not None else ""
    now = "" if event.status == "started" else f" {event.status}"
    return f"state {event.state_id}{item}{now} · {event.steps_done} done"


def entries_of(message: StoredMessage) -> list[Entry]:
    entries = _message_entries(message)
    return [replace(e, replaced=True) for e in entries] if message.replaced else entries


def reply_entry(message: StoredMessage) -> Entry:
    """The row of an assistant's reply, or of the error that stood in for one."""
    return Entry(
        "error" if message.role == "error" else "assistant",
        message.content,
        status=message.status,
        message_id=message.id,
        context=message.request_context,
        error=message.error,
    )


def _message_entries(message: StoredMessage) -> list[Entry]:
    if message.role == "user":
        return [Entry("user", message.content, message_id=message.id)]
    if message.role == "error":
        return [reply_entry(message)]
    if message.role == "summary":
        return []  # placed by ConversationModel.load, after the messages it covers
    if message.role != "assistant":
        return [Entry("notice", message.content, status=message.role, message_id=message.id)]
    out: list[Entry] = []
    if message.content or not message.tool_calls or message.status != "complete":
        out.append(reply_entry(message))
    delegations = message.request_context.delegations if message.request_context else ()
    runs = {d.call_id: run_of(d) for d in delegations}
    for call in message.tool_calls:
        if call.approval == "denied":
            status = "denied"
        elif call.elapsed_seconds is None and not call.result:
            status = "cancelled" if message.status != "streaming" else "pending"
        else:
            status = "failed" if call.is_error else "done"
        out.append(
            Entry(
                "tool_call",
                call.tool,
                status=status,
                call_id=call.id,
                tool_call=call,
                subagent=runs.get(call.id),
            )
        )
    return out
