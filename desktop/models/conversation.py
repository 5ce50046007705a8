"""The transcript of one chat as a list model, live: the core's chat events applied to its rows.

Chat events are applied with :meth:`ConversationModel.apply`; each becomes a row insert or a
``dataChanged`` on the row it updates, so the view only mirrors the model. The rows themselves,
a saved history, summaries and memory rows are :class:`ConversationRows`' (conversation_rows.py);
what a row is, :class:`Entry` (conversation_entries.py).
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QModelIndex

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
from agent_core.store.chats import StoredMessage, ToolCallRecord
from agent_core.tools.progress import ToolProgress
from desktop.models.conversation_entries import (
    CHOOSING_CONTEXT,
    WAITING_FOR_MODEL,
    Entry,
    prompt_progress_text,
    reply_entry,
    workflow_progress_text,
)
from desktop.models.conversation_rows import ConversationRows

__all__ = ["ConversationModel"]


class ConversationModel(ConversationRows):
    """A chat's transcript: its rows, and a reply being streamed into them."""

    # --- live events --------------------------------------------------------------------------

    def apply(self, event: ChatEvent) -> None:
        if isinstance(event, MessagesReplaced):
            if event.versions:
                self.set_aside(event.from_id, event.versions)  # an edit: the new version takes its place
            else:
                self.mark_replaced(event.from_id)
        elif isinstance(event, UserMessageSaved):
            message = event.message
            self._append(
                Entry("user", message.content, message_id=message.id, versions=self.new_version(message.id))
            )
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
            self._set_activity(event.call_id, workflow_progress_text(event))
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
        if decision is ApprovalDecision.ALLOW_FOR_CHAT:
            self._allow_the_same_tool(entry.approval)

    def _allow_the_same_tool(self, allowed: ApprovalRequest) -> None:
        """ "Allow for this chat" answers the same tool's other questions waiting on screen too: a
        view's calls (MCP Apps) come several at once, each asked before the first answer."""
        for row, entry in enumerate(self._rows):
            waiting = entry.approval
            if (
                entry.kind == "approval"
                and entry.decision is None
                and entry.status == "pending"
                and waiting is not None
                and waiting.sampling is None
                and (waiting.server, waiting.tool, waiting.origin)
                == (allowed.server, allowed.tool, allowed.origin)
            ):
                waiting.decide(ApprovalDecision.ALLOW_ONCE)
                self._set(row, replace(entry, decision=ApprovalDecision.ALLOW_ONCE, status="allow_once"))

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

    def _open_assistant(self, activity: str = "") -> int:
        if self._open_reply is None:
            self._open_reply = self._append(
                Entry("assistant", "", status="streaming", context=self._pending_context, activity=activity)
            )
        return self._open_reply

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
            self._append(reply_entry(message))
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
