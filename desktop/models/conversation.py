"""The transcript of one chat as a list model: messages, tool calls and approvals, live or saved.

Chat events from the core are applied with :meth:`ConversationModel.apply`; each becomes a row
insert or a ``dataChanged`` on the row it updates, so the view only mirrors the model.

A compaction summary (role "summary") is a row placed right after the last message it stands for;
the messages it covers stay in the transcript, marked ``dimmed``: the model now sees the summary.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import IntEnum
from textwrap import shorten
from typing import Any, Literal

from PySide6.QtCore import QByteArray, QModelIndex, Qt

from agent_core.chat.events import (
    WORKFLOW_GATE,
    ApprovalDecision,
    ApprovalRequest,
    ChatEvent,
    ContextBuilt,
    MessagesReplaced,
    PromptProgress,
    ReplyDelta,
    ReplyFinished,
    RequestSent,
    RetryScheduled,
    SamplingAnswered,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallStarted,
    TurnSaved,
    UserMessageSaved,
    WorkflowProgress,
)
from agent_core.context.items import RequestContext
from agent_core.memory.book import WriteOutcome
from agent_core.memory.records import Memory
from agent_core.store.chats import StoredMessage, ToolCallRecord
from agent_core.subagents.runs import SubagentRun, run_of
from agent_core.tool_progress import ToolProgress
from desktop.models._table import RowListModel
from desktop.models.tool_outcomes import ToolCallOutcome

__all__ = ["ConversationModel", "Entry", "EntryKind", "MemoryRowStatus", "Role"]

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


class ConversationModel(RowListModel[Entry]):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._open_reply: int | None = None  # the assistant row receiving deltas
        self._turn_row: int | None = None  # this turn's assistant row, once tool calls follow it
        self._pending_context: RequestContext | None = None
        self._sent_message_id: int | None = None  # the saved message of the turn being streamed

    # --- Qt -----------------------------------------------------------------------------------

    def row_data(self, entry: Entry, role: int) -> Any:
        if role in (Qt.ItemDataRole.DisplayRole, Role.TEXT):
            return entry.text
        by_role: dict[int, object] = {
            Role.KIND: entry.kind,
            Role.STATUS: entry.status,
            Role.CONTEXT: entry.context,
            Role.TOOL_CALL: entry.tool_call,
            Role.APPROVAL: entry.approval,
            Role.ERROR: entry.error,
            Role.MESSAGE_ID: entry.message_id,
            Role.ENTRY: entry,
            Role.DIMMED: entry.dimmed,
        }
        return by_role.get(role)

    def roleNames(self) -> dict[int, QByteArray]:
        return {role.value: QByteArray(role.name.lower().encode()) for role in Role}

    # --- reading ------------------------------------------------------------------------------

    def entry(self, row: int) -> Entry:
        return self._rows[row]

    def entries(self) -> list[Entry]:
        return list(self._rows)

    @property
    def is_streaming(self) -> bool:
        return self._open_reply is not None

    def tool_calls_of_reply(self, message_id: int) -> list[ToolCallOutcome]:
        """The tool calls made answering the message that the reply ``message_id`` answers (every
        turn of it, in order), for its View Context; the calls of answers it replaced are not."""
        row = next(
            (
                r
                for r, e in enumerate(self._rows)
                if e.message_id == message_id and e.kind in ("assistant", "error")
            ),
            None,
        )
        if row is None:
            return []
        start, end = row, row + 1
        while start > 0 and self._rows[start - 1].kind != "user":
            start -= 1
        while end < len(self._rows) and self._rows[end].kind != "user":
            end += 1
        replaced = self._rows[row].replaced
        return [
            ToolCallOutcome(e.tool_call, e.status)
            for e in self._rows[start:end]
            if e.kind == "tool_call" and e.tool_call is not None and e.replaced == replaced
        ]

    def last_context_row(self) -> int | None:
        """The newest assistant row that has a RequestContext (for "View Context" of the last reply)."""
        for row in range(len(self._rows) - 1, -1, -1):
            entry = self._rows[row]
            if entry.kind in ("assistant", "error") and entry.context is not None:
                return row
        return None

    def last_measured_context(self) -> RequestContext | None:
        """The newest reply's context that says what its request cost (for the context gauge): a
        reply stopped before its request went out, or one that made none (a workflow run), leaves
        the gauge on the last figure known rather than blank."""
        contexts = [
            e.context
            for e in reversed(self._rows)
            if e.kind in ("assistant", "error") and e.context is not None
        ]
        return next((c for c in contexts if c.manifest is not None), contexts[0] if contexts else None)

    # --- saved history ------------------------------------------------------------------------

    def load(self, messages: list[StoredMessage]) -> None:
        self.beginResetModel()
        self._rows = [entry for message in messages for entry in _entries_of(message)]
        for message in messages:
            if message.role == "summary" and message.covers_until is not None:
                row = self._summary_row(message.covers_until)
                self._rows.insert(row, self._summary_entry(message, automatic=False))
        self._open_reply = self._turn_row = None
        self._pending_context = None
        self._dim(emit=False)
        self.endResetModel()

    # --- summaries ----------------------------------------------------------------------------

    def add_summary(self, message: StoredMessage, *, automatic: bool, fresh: bool = False) -> int:
        """Show a compaction summary after the messages it covers, and dim those; a ``fresh``
        one (just made) shows open, with Undo."""
        if message.covers_until is None:
            return self._append(Entry("notice", message.content, status="summary", message_id=message.id))
        row = self._summary_row(message.covers_until)
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.insert(row, replace(self._summary_entry(message, automatic=automatic), fresh=fresh))
        self.endInsertRows()
        if self._open_reply is not None and self._open_reply >= row:
            self._open_reply += 1
        if self._turn_row is not None and self._turn_row >= row:
            self._turn_row += 1
        self._dim(emit=True)
        return row

    def remove_summary(self, message_id: int) -> None:
        """A compaction was undone: its summary goes and the messages it covered are not dimmed."""
        for row, entry in enumerate(self._rows):
            if entry.kind == "summary" and entry.message_id == message_id:
                self.beginRemoveRows(QModelIndex(), row, row)
                del self._rows[row]
                self.endRemoveRows()
                if self._open_reply is not None and self._open_reply > row:
                    self._open_reply -= 1
                if self._turn_row is not None and self._turn_row > row:
                    self._turn_row -= 1
                self._dim(emit=True)
                return

    def update_summary(self, message: StoredMessage) -> None:
        """The summary was edited: show the saved text."""
        for row, entry in enumerate(self._rows):
            if entry.kind == "summary" and entry.message_id == message.id:
                self._set(row, replace(entry, text=message.content, message=message))
                return

    def _summary_entry(self, message: StoredMessage, *, automatic: bool) -> Entry:
        assert message.covers_until is not None
        covered = sum(
            1
            for e in self._rows
            if e.kind in ("user", "assistant", "error")
            and e.message_id is not None
            and e.message_id <= message.covers_until
        )
        return Entry(
            "summary",
            message.content,
            message_id=message.id,
            message=message,
            covers_until=message.covers_until,
            covered=covered,
            automatic=automatic,
        )

    def _summary_row(self, covers_until: int) -> int:
        """Right after the last message the summary covers (and that message's tool rows)."""
        row = 0
        for index, entry in enumerate(self._rows):
            if entry.kind == "summary":
                if entry.covers_until is not None and entry.covers_until <= covers_until:
                    row = index + 1
            elif entry.message_id is not None:
                if entry.message_id > covers_until:
                    break
                row = index + 1
            elif entry.kind == "tool_call" and row == index:
                row = index + 1  # a tool row of the last covered message
        return row

    def _dim(self, *, emit: bool) -> None:
        summaries = [e for e in self._rows if e.kind == "summary" and e.message_id is not None]
        latest = max(summaries, key=lambda e: e.message_id or 0, default=None)
        limit = latest.covers_until if latest is not None else None
        dimmed_owner = False
        for row, entry in enumerate(self._rows):
            if entry.kind == "summary":
                dimmed = entry is not latest
            elif entry.message_id is not None:
                dimmed = (limit is not None and entry.message_id <= limit) or entry.replaced
                dimmed_owner = dimmed
            elif entry.kind == "tool_call":
                dimmed = dimmed_owner or entry.replaced
            else:
                dimmed = False
            if dimmed != entry.dimmed:
                if emit:
                    self._set(row, replace(entry, dimmed=dimmed))
                else:
                    self._rows[row] = replace(entry, dimmed=dimmed)

    # --- live events --------------------------------------------------------------------------

    def apply(self, event: ChatEvent) -> None:
        if isinstance(event, MessagesReplaced):
            self.mark_replaced(event.from_id)
        elif isinstance(event, UserMessageSaved):
            self._append(Entry("user", event.message.content, message_id=event.message.id))
            # The reply's row at once, saying what it waits for: waiting is never silent.
            self._open_assistant(CHOOSING_CONTEXT)
        elif isinstance(event, ContextBuilt):
            self._pending_context = event.context
            row = self._open_assistant()
            self._set(row, replace(self._rows[row], context=event.context, activity=WAITING_FOR_MODEL))
        elif isinstance(event, RequestSent):
            # The context now says what the request costs; a row opened later for this turn gets it too.
            self._sent_message_id = event.message.id
            self._pending_context = event.message.request_context or self._pending_context
            if self._open_reply is not None:
                row = self._open_reply
                self._set(row, replace(self._rows[row], context=self._pending_context))
        elif isinstance(event, PromptProgress):
            row = self._open_assistant()
            if not self._rows[row].text:
                self._set(row, replace(self._rows[row], activity=prompt_progress_text(event)))
        elif isinstance(event, ReplyDelta):
            row = self._open_assistant()
            entry = self._rows[row]
            self._set(row, replace(entry, text=entry.text + event.text, status="streaming", activity=""))
        elif isinstance(event, RetryScheduled):
            # One line for the whole run of retries, kept up to date, not a line per attempt.
            text = f"{event.error} Trying again in {event.delay:.0f} s (attempt {event.attempt + 1})."
            retry_row = self._retry_notice_row()
            if retry_row is None:
                self._append(Entry("notice", text, status="retry"))
            else:
                self._set(retry_row, replace(self._rows[retry_row], text=text))
        elif isinstance(event, ApprovalRequest):
            self._close_reply_if_empty()
            self._append(
                Entry(
                    "approval",
                    f"the state {event.tool}"
                    if event.server == WORKFLOW_GATE
                    else f"{event.server}.{event.tool}",
                    status="pending",
                    call_id=event.call_id,
                    approval=event,
                    tool_call=ToolCallRecord(event.call_id, event.server, event.tool, event.arguments),
                )
            )
        elif isinstance(event, SamplingAnswered):
            asked = event.record
            self._set_activity(asked.call_id, f"Sampling request from {asked.server}: {asked.outcome}")
        elif isinstance(event, ToolCallStarted):
            self._close_reply_if_empty()
            record = ToolCallRecord(event.call_id, event.server, event.tool, event.arguments)
            self._upsert_tool(event.call_id, record, "running")
        elif isinstance(event, WorkflowProgress):
            self._set_activity(event.call_id, _progress_text(event))
        elif isinstance(event, ToolCallProgress):
            self._set_activity(event.call_id, event.progress.describe(), event.progress)
        elif isinstance(event, ToolCallFinished):
            record = event.record
            status = "failed" if record.is_error else "done"
            if record.approval == "denied":
                status = "denied"
            self._upsert_tool(record.id, record, status)
            self._expire_approvals(record.id)
        elif isinstance(event, TurnSaved):
            self._sent_message_id = None
            self._finish_reply(event.message)
            # The next turn opens a fresh assistant row with the same context.
            self._pending_context = event.message.request_context
        elif isinstance(event, ReplyFinished):
            self._sent_message_id = None
            self._finish_reply(event.message)
            self._pending_context = None

    def decide(self, row: int, decision: ApprovalDecision) -> None:
        """Answer the approval on ``row`` (once) and show the answer on that row."""
        entry = self._rows[row]
        if entry.approval is None or entry.decision is not None:
            return
        entry.approval.decide(decision)
        self._set(row, replace(entry, decision=decision, status=decision.value))

    def mark_stopped(self) -> int | None:
        """The reply was stopped by the user: close the open reply and unanswered approvals.
        Returns the id of the stopped reply's saved message when its row shows it (its row now
        carries that id), so it can be read back with what the core kept of it."""
        stopped: int | None = None
        row = self._open_reply if self._open_reply is not None else self._turn_row
        if row is not None:
            entry = self._rows[row]
            if entry.message_id is None and self._sent_message_id is not None:
                entry = replace(entry, message_id=self._sent_message_id)
                stopped = self._sent_message_id
            status = "cancelled" if row == self._open_reply else entry.status
            self._set(row, replace(entry, status=status))
            self._open_reply = None
        self._turn_row = None
        self._sent_message_id = None
        for row, entry in enumerate(self._rows):
            if entry.kind == "approval" and entry.decision is None and entry.status == "pending":
                self._set(row, replace(entry, status="cancelled"))
            if entry.kind == "tool_call" and entry.status == "running":
                self._set(row, replace(entry, status="cancelled"))
        self._pending_context = None
        return stopped

    def set_saved_context(self, message: StoredMessage) -> None:
        """Show the context the core saved with ``message`` on its row (a stopped reply's counts)."""
        for row, entry in enumerate(self._rows):
            if entry.message_id == message.id and entry.kind in ("assistant", "error"):
                self._set(row, replace(entry, context=message.request_context or entry.context))
                return

    def add_notice(self, text: str, status: str = "info") -> None:
        self._append(Entry("notice", text, status=status))

    # --- memories -------------------------------------------------------------------------------

    def add_memory(self, outcome: WriteOutcome, after_message: int | None = None) -> int | None:
        """A memory a message proposed or saved, as a row: after ``after_message``'s row (and the
        memory rows already there), else at the end. None when the outcome holds no memory."""
        memory = outcome.memory
        if memory is None:
            return None
        status: MemoryRowStatus = "proposed" if memory.status == "proposed" else "remembered"
        replaces = outcome.other.text if outcome.other is not None else ""
        entry = Entry(
            "memory",
            memory.text,
            status=status,
            memory=memory,
            replaces=replaces,
            merged=outcome.action == "merged",
        )
        return self._insert_after_message(entry, after_message)

    def add_open_proposals(self, proposals: list[tuple[Memory, str]]) -> None:
        """Proposals still waiting for an answer when the chat is reopened, each after the message
        it came from; ``proposals`` pairs a memory with the words of the one it would replace."""
        shown = {e.memory.id for e in self._rows if e.memory is not None}
        for memory, replaces in proposals:
            if memory.id not in shown:
                entry = Entry("memory", memory.text, status="proposed", memory=memory, replaces=replaces)
                self._insert_after_message(entry, memory.provenance.message_id)

    def memory_row(self, memory_id: str) -> int | None:
        for row, entry in enumerate(self._rows):
            if entry.kind == "memory" and entry.memory is not None and entry.memory.id == memory_id:
                return row
        return None

    def set_memory(self, row: int, status: MemoryRowStatus, memory: Memory | None = None) -> None:
        """The memory on ``row`` was answered (or an answer is on its way: ``working``)."""
        entry = self._rows[row]
        memory = memory or entry.memory
        self._set(
            row, replace(entry, status=status, memory=memory, text=memory.text if memory else entry.text)
        )

    def set_subagent(self, run: SubagentRun) -> None:
        """Show ``run`` on the row of the tool call that started it."""
        for row in range(len(self._rows) - 1, -1, -1):
            entry = self._rows[row]
            if entry.kind == "tool_call" and entry.call_id == run.call_id:
                self._set(row, replace(entry, subagent=run))
                return

    def set_memory_words(self, row: int, memory: Memory) -> None:
        """The memory on ``row`` changed elsewhere (edited, pinned, forgotten in View Context)."""
        entry = self._rows[row]
        status = "forgotten" if memory.status == "forgotten" else entry.status
        self._set(row, replace(entry, status=status, memory=memory, text=memory.text))

    def _insert_after_message(self, entry: Entry, message_id: int | None) -> int:
        row = len(self._rows)
        if message_id is not None:
            for index, existing in enumerate(self._rows):
                if existing.message_id == message_id and existing.kind in ("user", "assistant", "error"):
                    row = index + 1
                    while row < len(self._rows) and self._rows[row].kind == "memory":
                        row += 1
                    break
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.insert(row, entry)
        self.endInsertRows()
        if self._open_reply is not None and self._open_reply >= row:
            self._open_reply += 1
        if self._turn_row is not None and self._turn_row >= row:
            self._turn_row += 1
        return row

    # --- helpers ------------------------------------------------------------------------------

    def _append(self, entry: Entry) -> int:
        row = len(self._rows)
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.append(entry)
        self.endInsertRows()
        return row

    def _set(self, row: int, entry: Entry) -> None:
        self._rows[row] = entry
        index = self.index(row, 0)
        self.dataChanged.emit(index, index, [])

    def _open_assistant(self, activity: str = "") -> int:
        if self._open_reply is None:
            self._open_reply = self._append(
                Entry("assistant", "", status="streaming", context=self._pending_context, activity=activity)
            )
        return self._open_reply

    def mark_replaced(self, from_id: int) -> None:
        """The messages from ``from_id`` on (and their tool rows) were replaced: kept, dimmed."""
        replacing = False
        for row, entry in enumerate(self._rows):
            if entry.kind == "summary":
                continue
            if entry.message_id is not None:
                replacing = entry.message_id >= from_id
            if replacing and not entry.replaced and entry.kind in ("user", "assistant", "error", "tool_call"):
                self._rows[row] = replace(entry, replaced=True)
        self._dim(emit=False)
        if self._rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, 0))

    def last_reply_row(self) -> int | None:
        """The newest assistant or error row still in the conversation (what Regenerate redoes)."""
        for row in range(len(self._rows) - 1, -1, -1):
            entry = self._rows[row]
            if entry.kind in ("assistant", "error") and not entry.replaced and entry.message_id is not None:
                return row
            if entry.kind == "user" and not entry.replaced:
                return None
        return None

    def note_waiting(self, activity: str, *, before_context: bool = False) -> None:
        """Say what the reply being made waits for (the index, the model loading…), while it has
        no text yet; ``before_context``: only while its context is still being chosen."""
        row = self._open_reply
        if row is None:
            return
        entry = self._rows[row]
        if entry.text or (before_context and entry.context is not None):
            return
        self._set(row, replace(entry, activity=activity))

    def _close_reply_if_empty(self) -> None:
        """Before a tool row: an empty open reply row is removed, a non-empty one stays in place."""
        row = self._open_reply
        if row is None:
            return
        if not self._rows[row].text and row == len(self._rows) - 1:
            self.beginRemoveRows(QModelIndex(), row, row)
            del self._rows[row]
            self.endRemoveRows()
        else:
            self._turn_row = row
        self._open_reply = None

    def _retry_notice_row(self) -> int | None:
        """This turn's "trying again" line, if the provider is being retried."""
        for row in range(len(self._rows) - 1, -1, -1):
            entry = self._rows[row]
            if entry.kind == "user":
                return None
            if entry.kind == "notice" and entry.status == "retry":
                return row
        return None

    def _drop_retry_notice(self) -> None:
        """The reply came, or failed for good: "trying again" is no longer true (a failure's row
        says what went wrong and how to fix it)."""
        row = self._retry_notice_row()
        if row is None:
            return
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._rows[row]
        self.endRemoveRows()
        for name in ("_open_reply", "_turn_row"):
            index = getattr(self, name)
            if index is not None and index > row:
                setattr(self, name, index - 1)

    def _finish_reply(self, message: StoredMessage) -> None:
        self._drop_retry_notice()
        if message.role == "error":
            if self._open_reply is not None and not self._rows[self._open_reply].text:
                self._close_reply_if_empty()
            self._open_reply = self._turn_row = None
            self._append(
                Entry(
                    "error",
                    message.content,
                    status=message.status,
                    message_id=message.id,
                    context=message.request_context,
                    error=message.error,
                )
            )
            return
        text = message.content
        row = self._open_reply if self._open_reply is not None else self._turn_row
        self._open_reply = self._turn_row = None
        if row is None:
            if not text and message.tool_calls:
                return  # a tool-only turn: its tool rows already show it
            row = self._append(Entry("assistant", ""))
        entry = self._rows[row]
        self._set(
            row,
            replace(
                entry,
                text=text,
                status=message.status,
                message_id=message.id,
                context=message.request_context or entry.context,
                error=message.error,
            ),
        )

    def _upsert_tool(self, call_id: str, record: ToolCallRecord, status: str) -> None:
        for row in range(len(self._rows) - 1, -1, -1):
            entry = self._rows[row]
            if entry.kind == "tool_call" and entry.call_id == call_id:
                self._set(row, replace(entry, tool_call=record, status=status, activity="", progress=None))
                return
        self._append(Entry("tool_call", record.tool, status=status, call_id=call_id, tool_call=record))

    def _expire_approvals(self, call_id: str) -> None:
        """A sampling question still open when its tool call ended (the call timed out): the core
        refused it, so its card no longer asks."""
        for row, entry in enumerate(self._rows):
            asking = entry.status == "pending" and entry.decision is None
            sampling = entry.approval is not None and entry.approval.sampling is not None
            if entry.kind == "approval" and entry.call_id == call_id and asking and sampling:
                self._set(row, replace(entry, status="expired"))

    def _set_activity(self, call_id: str, activity: str, progress: ToolProgress | None = None) -> None:
        for row in range(len(self._rows) - 1, -1, -1):
            entry = self._rows[row]
            if entry.kind == "tool_call" and entry.call_id == call_id and entry.status == "running":
                self._set(row, replace(entry, activity=activity, progress=progress or entry.progress))
                return


def prompt_progress_text(event: PromptProgress) -> str:
    """ "Processing the prompt: 256 of 1,024 tokens…"; only the new tokens count when the start of
    the prompt was kept from the last request (cached)."""
    if event.cached:
        return (
            f"Processing the prompt: {event.done:,} of {event.total:,} new tokens ({event.cached:,} cached)…"
        )
    return f"Processing the prompt: {event.done:,} of {event.total:,} tokens…"


def _progress_text(event: WorkflowProgress) -> str:
    """Where a running workflow is: "state draft · 1 done" (the state now running, or the last)."""
    item = f" ({shorten(str(event.item), 30)})" if event.item is not None else ""
    now = "" if event.status == "started" else f" {event.status}"
    return f"state {event.state_id}{item}{now} · {event.steps_done} done"


def _entries_of(message: StoredMessage) -> list[Entry]:
    entries = _message_entries(message)
    return [replace(e, replaced=True) for e in entries] if message.replaced else entries


def _message_entries(message: StoredMessage) -> list[Entry]:
    if message.role == "user":
        return [Entry("user", message.content, message_id=message.id)]
    if message.role == "error":
        return [
            Entry(
                "error",
                message.content,
                status=message.status,
                message_id=message.id,
                context=message.request_context,
                error=message.error,
            )
        ]
    if message.role == "summary":
        return []  # placed by ConversationModel.load, after the messages it covers
    if message.role != "assistant":
        return [Entry("notice", message.content, status=message.role, message_id=message.id)]
    out: list[Entry] = []
    if message.content or not message.tool_calls or message.status != "complete":
        out.append(
            Entry(
                "assistant",
                message.content,
                status=message.status,
                message_id=message.id,
                context=message.request_context,
                error=message.error,
            )
        )
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
