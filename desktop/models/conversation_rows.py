"""The rows of a chat's transcript as a list model, apart from the live events: reading them,
a saved history loaded, compaction summaries (each right after the last message it stands for,
the messages it covers kept but dimmed), memory rows, and replaced messages dimmed."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import QByteArray, QModelIndex, Qt

from agent_core.chat.branches import Versions, shown_messages, versions_of
from agent_core.context.items import RequestContext
from agent_core.memory.book import WriteOutcome
from agent_core.memory.records import Memory
from agent_core.store.chats import StoredMessage
from agent_core.subagents.runs import SubagentRun
from desktop.models._table import RowListModel
from desktop.models.conversation_entries import Entry, MemoryRowStatus, Role, entries_of
from desktop.models.tool_outcomes import ToolCallOutcome

__all__ = ["ConversationRows"]


class ConversationRows(RowListModel[Entry]):
    """The rows and what changes them outside a reply being streamed (see ConversationModel)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._open_reply: int | None = None  # the assistant row receiving deltas
        self._turn_row: int | None = None  # this turn's assistant row, once tool calls follow it
        self._pending_context: RequestContext | None = None
        self._sent_message_id: int | None = None  # the saved message of the turn being streamed
        self._edited_versions: tuple[int, ...] = ()  # an edit's earlier versions, for its new one

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
        """The saved chat as its transcript shows it: the branch shown of each edited message
        (with its versions on its row), not the branches set aside."""
        versions = versions_of(messages)
        messages = shown_messages(messages)
        self.beginResetModel()
        self._rows = [
            replace(entry, versions=versions.get(entry.message_id or 0)) if entry.kind == "user" else entry
            for message in messages
            for entry in entries_of(message)
        ]
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

    def set_aside(self, from_id: int, versions: tuple[int, ...]) -> None:
        """An edit set the user's message ``from_id`` and what followed it aside, as a branch of
        its own: their rows leave the transcript (summaries stay), and the next user message
        saved is its new version, in its place, after ``versions``."""
        start = next(
            (r for r, e in enumerate(self._rows) if e.message_id == from_id and e.kind == "user"), None
        )
        if start is None:
            return
        for row in range(len(self._rows) - 1, start - 1, -1):
            if self._rows[row].kind != "summary":
                self.beginRemoveRows(QModelIndex(), row, row)
                del self._rows[row]
                self.endRemoveRows()
        self._edited_versions = versions

    def new_version(self, message_id: int) -> Versions | None:
        """The versions of the user message ``message_id`` just saved: after an edit, the edited
        message's earlier ones and it (None for a message not made by an edit)."""
        earlier, self._edited_versions = self._edited_versions, ()
        return Versions((*earlier, message_id), message_id) if earlier else None

    def last_reply_row(self) -> int | None:
        """The newest assistant or error row still in the conversation (what Regenerate redoes)."""
        for row in range(len(self._rows) - 1, -1, -1):
            entry = self._rows[row]
            if entry.kind in ("assistant", "error") and not entry.replaced and entry.message_id is not None:
                return row
            if entry.kind == "user" and not entry.replaced:
                return None
        return None
