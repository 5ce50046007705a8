"""The transcript: one widget per row of a ConversationModel, kept in step with its signals."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal, SignalInstance
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from agent_core.chat.events import ApprovalDecision
from agent_core.subagents.tools import SUBAGENT_SERVER
from desktop.models.conversation import ConversationModel
from desktop.models.conversation_entries import Entry, Role
from desktop.views.approval_widget import ApprovalWidget
from desktop.views.entry_widget import EntryWidget
from desktop.views.memory_chip import MemoryChip
from desktop.views.message_widgets import MessageWidget, NoticeWidget
from desktop.views.subagent_call import SubagentCallWidget
from desktop.views.summary_widget import SummaryWidget
from desktop.views.tool_call_widget import ToolCallWidget
from desktop.views.transcript_keys import TranscriptKeys
from desktop.views.welcome import EmptyChat

__all__ = ["ConversationView", "readable_width"]

Index = QModelIndex | QPersistentModelIndex


class ConversationView(QScrollArea):
    view_context_requested = Signal(object)  # Entry of a reply
    decision_made = Signal(int, object)  # row, ApprovalDecision
    summary_edited = Signal(int, str)  # row, new text
    summary_undone = Signal(int)  # row of the summary whose compaction is taken back
    remember_requested = Signal(object)  # Entry of a message: "Remember this"
    memory_accepted = Signal(int, object)  # row, the corrected words or None
    memory_rejected = Signal(int)  # row
    memory_forgotten = Signal(int)  # row
    subagent_cancel_requested = Signal(str)  # call id
    subagent_transcript_requested = Signal(str, str)  # child chat id, title
    regenerate_requested = Signal()  # answer the last message again
    example_chosen = Signal(str)  # a welcome example to put in the message box
    workspace_requested = Signal()  # choose the workspace folder (from the welcome)
    edit_requested = Signal(object)  # Entry: a message of the user's to change and send again
    version_requested = Signal(int, int)  # an edited message's id, -1 (◀) or +1 (▶)
    resource_open_requested = Signal(object)  # ResultResource of a tool result: read and show it
    resource_attach_requested = Signal(object)  # ResultResource of a tool result: attach it
    notice_requested = Signal(str)  # something a row could not do, for the chat to show
    model_pick_requested = Signal()  # "Pick another model" on a question about the model's limits
    app_slot_ready = Signal(object, object, bool)  # a tool call's view: record, AppSlot, just made

    def __init__(
        self,
        model: ConversationModel,
        agent_name: str = "Assistant",
        parent: QWidget | None = None,
        *,
        user_name: str = "You",
        read_only: bool = False,
    ) -> None:
        """``read_only``: a transcript to look at (a sub-agent's chat), nothing to save from it."""
        super().__init__(parent)
        self.model = model
        self.agent_name = agent_name
        self.user_name = user_name
        self.read_only = read_only
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # one Tab stop; arrows move inside
        # Messages keep a readable line length however wide the window is, centred in it.
        page = QWidget()
        page_layout = QHBoxLayout(page)
        page_layout.setContentsMargins(0, 0, 0, 0)
        container = QWidget()
        container.setObjectName("transcript")
        container.setMaximumWidth(readable_width(self))
        page_layout.addWidget(container)
        self._layout = QVBoxLayout(container)
        self._layout.setContentsMargins(16, 12, 16, 12)
        self._layout.setSpacing(10)
        # Before the first message: a welcome on the first run, one line afterwards.
        self._empty = QLabel() if read_only else EmptyChat()
        self._layout.addWidget(self._empty)
        self._layout.addStretch(1)
        self.setWidget(page)
        self.keys = TranscriptKeys(self, lambda: self._widgets, _keeps_own_keys, _activate)
        if isinstance(self._empty, EmptyChat):
            self._empty.example_chosen.connect(self.example_chosen)
            self._empty.workspace_requested.connect(self.workspace_requested)
        self._widgets: list[EntryWidget] = []
        self._stick_to_bottom = True
        self.verticalScrollBar().rangeChanged.connect(self._on_range_changed)
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)
        model.modelReset.connect(self._rebuild)
        model.rowsInserted.connect(self._on_inserted)
        model.rowsRemoved.connect(self._on_removed)
        model.dataChanged.connect(self._on_changed)
        self._rebuild()

    def widgets(self) -> list[EntryWidget]:
        return list(self._widgets)

    def widget_at(self, row: int) -> EntryWidget:
        return self._widgets[row]

    # --- model signals ------------------------------------------------------------------------

    def _rebuild(self) -> None:
        for widget in self._widgets:
            widget.setParent(None)
            widget.deleteLater()
        self._widgets = []
        for row in range(self.model.rowCount()):
            self._insert(row)
        self._update_empty()
        self._update_actions()
        self.scroll_to_bottom()

    def _on_inserted(self, parent: Index, first: int, last: int) -> None:
        for row in range(first, last + 1):
            self._insert(row)
        self._update_empty()
        self._update_actions()

    def _on_removed(self, parent: Index, first: int, last: int) -> None:
        for _ in range(first, last + 1):
            widget = self._widgets.pop(first)
            widget.setParent(None)
            widget.deleteLater()
        self._update_empty()
        self._update_actions()

    def _on_changed(self, top_left: Index, bottom_right: Index, _roles: list[int]) -> None:
        for row in range(top_left.row(), bottom_right.row() + 1):
            self._widgets[row].set_entry(self.model.data(self.model.index(row, 0), Role.ENTRY))
        self._update_actions()

    def _update_actions(self) -> None:
        """Regenerate (or Retry) on the newest finished reply, Edit on the user's own messages."""
        if self.read_only:
            return
        last = self.model.last_reply_row()
        for row, widget in enumerate(self._widgets):
            if isinstance(widget, MessageWidget) and widget.entry is not None:
                entry = widget.entry
                finished = entry.status != "streaming"
                widget.show_actions(
                    can_regenerate=row == last and finished,
                    can_edit=entry.kind == "user" and not entry.replaced and entry.message_id is not None,
                )

    def _insert(self, row: int) -> None:
        entry = self.model.entry(row)
        widget = self._widget_for(entry)
        if isinstance(widget, MessageWidget):
            widget.view_context_requested.connect(self.view_context_requested)
            widget.remember_requested.connect(self.remember_requested)
            widget.regenerate_requested.connect(self.regenerate_requested)
            widget.edit_requested.connect(self.edit_requested)
            widget.version_requested.connect(
                lambda entry, step: self.version_requested.emit(entry.message_id, step)
            )
        if isinstance(widget, SubagentCallWidget):
            widget.cancel_requested.connect(self.subagent_cancel_requested)
            widget.transcript_requested.connect(self.subagent_transcript_requested)
        if isinstance(widget, MemoryChip):
            widget.accept_requested.connect(
                lambda text, w=widget: self._emit_row(w, self.memory_accepted, text)
            )
            widget.reject_requested.connect(lambda w=widget: self._emit_row(w, self.memory_rejected))
            widget.forget_requested.connect(lambda w=widget: self._emit_row(w, self.memory_forgotten))
        if isinstance(widget, ApprovalWidget):
            widget.decided.connect(lambda decision, w=widget: self._decide(w, decision))
            widget.model_pick_requested.connect(self.model_pick_requested)
        if isinstance(widget, SummaryWidget):
            widget.edited.connect(lambda text, w=widget: self._edit_summary(w, text))
            widget.undo_requested.connect(lambda w=widget: self._emit_row(w, self.summary_undone))
        if isinstance(widget, ToolCallWidget):
            widget.resource_open_requested.connect(self.resource_open_requested)
            widget.resource_attach_requested.connect(self.resource_attach_requested)
            widget.save_failed.connect(self.notice_requested)
            widget.app_slot_ready.connect(self.app_slot_ready)
            record = widget.entry.tool_call if widget.entry is not None else None
            if widget.app_slot is not None and record is not None:  # a saved call, built finished
                self.app_slot_ready.emit(record, widget.app_slot, False)
        if isinstance(widget, SummaryWidget | ToolCallWidget):
            widget.toggle.pressed.connect(lambda w=widget: self._keep_in_place(w))
        self._widgets.insert(row, widget)
        self._layout.insertWidget(row + 1, widget)  # after the empty-state label
        self.keys.attach(widget)

    def _keep_in_place(self, widget: EntryWidget) -> None:
        """The user opens (or closes) ``widget``: it stays under the pointer. Following the bottom
        would scroll the growing content up, taking the row just clicked out of sight."""
        if self._widgets and widget is not self._widgets[-1]:
            self._stick_to_bottom = False

    def _decide(self, widget: EntryWidget, decision: ApprovalDecision) -> None:
        if widget in self._widgets:
            self.decision_made.emit(self._widgets.index(widget), decision)

    def _widget_for(self, entry: Entry) -> EntryWidget:
        if entry.kind == "memory":
            return MemoryChip(entry)
        if (
            entry.kind == "tool_call"
            and entry.tool_call is not None
            and entry.tool_call.server == SUBAGENT_SERVER
        ):
            return SubagentCallWidget(entry)
        return widget_for(entry, self.agent_name, user_name=self.user_name, read_only=self.read_only)

    def _emit_row(self, widget: EntryWidget, signal: SignalInstance, *args: object) -> None:
        if widget in self._widgets:
            signal.emit(self._widgets.index(widget), *args)

    def _edit_summary(self, widget: EntryWidget, text: str) -> None:
        if widget in self._widgets:
            self.summary_edited.emit(self._widgets.index(widget), text)

    def note_workspace_folder(self, folder: str, exists: bool) -> None:
        """See :meth:`EmptyChat.note_workspace_folder`."""
        if isinstance(self._empty, EmptyChat):
            self._empty.note_workspace_folder(folder, exists)

    def offer_examples(self, served: frozenset[str]) -> None:
        """See :meth:`EmptyChat.offer_only`."""
        if isinstance(self._empty, EmptyChat):
            self._empty.offer_only(served)

    def _update_empty(self) -> None:
        self._empty.setVisible(not self._widgets)

    # --- keyboard -----------------------------------------------------------------------------

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        reason = event.reason()
        if self.keys.enter(reason):
            return
        # No messages yet: the welcome's buttons are the next stops, or the part before this.
        if reason == Qt.FocusReason.BacktabFocusReason:
            self.keys.leave(forward=False)
        elif reason == Qt.FocusReason.TabFocusReason:
            self.focusNextChild()

    # --- scrolling ----------------------------------------------------------------------------

    def _on_scrolled(self, value: int) -> None:
        bar = self.verticalScrollBar()
        self._stick_to_bottom = value >= bar.maximum() - 24

    def _on_range_changed(self, _minimum: int, maximum: int) -> None:
        if self._stick_to_bottom:
            self.verticalScrollBar().setValue(maximum)

    def scroll_to_bottom(self) -> None:
        self._stick_to_bottom = True
        # With the view as the context: a tab closed before the timer fires drops it (otherwise
        # "Internal C++ object (ConversationView) already deleted" at each fast close).
        QTimer.singleShot(
            0, self, lambda: self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
        )


def readable_width(widget: QWidget) -> int:
    """About 100 characters of the body font, with the bubbles' margins: lines stay readable
    in a full-screen window."""
    return widget.fontMetrics().averageCharWidth() * 100 + 2 * 16 + 2 * 12


def _keeps_own_keys(row: QWidget) -> bool:
    """A waiting approval: Enter, Ctrl+Enter and Esc decide it (ApprovalWidget)."""
    return isinstance(row, ApprovalWidget) and row.focusPolicy() != Qt.FocusPolicy.NoFocus


def _activate(row: QWidget) -> bool:
    """Enter on a reply opens its View Context."""
    if isinstance(row, MessageWidget) and row.context_button.isVisible():
        row.context_button.click()
        return True
    return False


def widget_for(
    entry: Entry, agent_name: str, *, user_name: str = "You", read_only: bool = False
) -> EntryWidget:
    """The widget that shows a row of ``entry``'s kind."""
    if entry.kind == "summary":
        return SummaryWidget(entry)
    if entry.kind in ("user", "assistant", "error"):
        return MessageWidget(entry, agent_name, user_name=user_name, can_remember=not read_only)
    if entry.kind == "tool_call":
        return ToolCallWidget(entry)
    if entry.kind == "approval":
        return ApprovalWidget(entry)
    return NoticeWidget(entry)
