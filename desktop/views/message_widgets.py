"""The transcript's message rows: a user or assistant message (or an error reply) rendered as
markdown with its actions, and a notice line from the app."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from agent_core.context.unbacked_claims import unbacked_claim
from desktop.models.conversation_entries import Entry
from desktop.theme import colors
from desktop.views.common import Badge, ElidedLabel, MarkdownView
from desktop.views.entry_widget import EntryWidget

__all__ = ["MessageWidget", "NoticeWidget"]

RENDER_INTERVAL_MS = 40  # re-render streaming markdown at most this often
STATUS_TEXT = {
    "streaming": "Writing…",
    "cancelled": "Stopped",
    "partial": "Incomplete",
    "error": "Failed",
}


class MessageWidget(EntryWidget):
    """A user or assistant message (or an error reply), rendered as markdown."""

    view_context_requested = Signal(object)  # Entry (its context and message id)
    remember_requested = Signal(object)  # Entry: save (part of) this message as a memory
    regenerate_requested = Signal()  # answer the last message again (Retry after an error)
    edit_requested = Signal(object)  # Entry: a message of the user's, to edit and send again
    version_requested = Signal(object, int)  # Entry of an edited message, -1 (◀) or +1 (▶)

    def __init__(
        self,
        entry: Entry,
        agent_name: str = "Assistant",
        parent: QWidget | None = None,
        *,
        user_name: str = "You",
        can_remember: bool = True,
    ) -> None:
        super().__init__(parent)
        palette = colors()
        self.setObjectName("message")
        self._can_remember = can_remember
        is_user = entry.kind == "user"
        background = palette.user_bubble if is_user else palette.assistant_bubble
        self.setStyleSheet(
            f"#message {{ background-color: {background}; border: 1px solid {palette.border}; border-radius: 10px; }}"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(4)
        header = QHBoxLayout()
        # Both give way before the buttons do: a narrow chat column still shows every button.
        self._who = ElidedLabel(user_name if is_user else agent_name)
        self._who.setStyleSheet("font-weight: 600;")
        self._status = ElidedLabel(minimum=0)
        self._status.setStyleSheet(f"color: {palette.muted};")
        header.addWidget(self._who)
        header.addWidget(self._status)
        header.addStretch(1)
        self.copy_button = QToolButton()
        self.copy_button.setText("Copy")
        self.copy_button.setAutoRaise(True)
        self.copy_button.setToolTip("Copy this message as markdown")
        self.copy_button.clicked.connect(self._copy)
        self.remember_button = QToolButton()
        self.remember_button.setText("Remember…")
        self.remember_button.setAutoRaise(True)
        self.remember_button.setToolTip("Save a fact from this message as a long-term memory")
        self.remember_button.clicked.connect(self._remember)
        self.context_button = QPushButton("View Context")
        self.context_button.setToolTip(
            "What this reply used: rules, references and tools (Ctrl+I for the last reply)"
        )
        self.context_button.setFlat(True)
        self.context_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.context_button.clicked.connect(self._view_context)
        self.regenerate_button = QToolButton()
        self.regenerate_button.setAutoRaise(True)
        self.regenerate_button.setToolTip("Answer the last message again; this answer is kept, dimmed")
        self.regenerate_button.clicked.connect(self.regenerate_requested)
        self.regenerate_button.hide()
        self.edit_button = QToolButton()
        self.edit_button.setText("Edit")
        self.edit_button.setAutoRaise(True)
        self.edit_button.setToolTip(
            "Change this message and send it again; this version and what followed it are kept (◀ ▶)"
        )
        self.edit_button.clicked.connect(self._edit)
        self.edit_button.hide()
        header.addWidget(self.copy_button)
        header.addWidget(self.edit_button)
        header.addWidget(self.regenerate_button)
        header.addWidget(self.remember_button)
        header.addWidget(self.context_button)
        layout.addLayout(header)
        self.body = MarkdownView()
        layout.addWidget(self.body)
        self._error = QLabel()
        self._error.setWordWrap(True)
        self._error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._error.setStyleSheet(f"color: {palette.error};")
        self._error.hide()
        layout.addWidget(self._error)
        # A reply that says it read or did something no tool did: said beside it, not only in
        # View Context (agent_core.context.unbacked_claims).
        self.unbacked = QLabel()
        self.unbacked.setWordWrap(True)
        self.unbacked.setStyleSheet(
            f"background-color: {palette.warning_background}; padding: 4px 6px; border-radius: 4px;"
        )
        self.unbacked.hide()
        layout.addWidget(self.unbacked)
        layout.addLayout(self._version_switcher())
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.timeout.connect(self._render)
        self.set_entry(entry)

    def _version_switcher(self) -> QHBoxLayout:
        """◀ 1/2 ▶ under an edited message: the versions it has, each with its own replies."""
        row = QHBoxLayout()
        row.setSpacing(2)
        self.previous_version = QToolButton()
        self.previous_version.setText("◀")
        self.previous_version.setAutoRaise(True)
        self.previous_version.setToolTip("The version before this one, with the replies it had")
        self.previous_version.clicked.connect(lambda: self._switch_version(-1))
        self.version_label = QLabel()
        self.version_label.setStyleSheet(f"color: {colors().muted};")
        self.next_version = QToolButton()
        self.next_version.setText("▶")
        self.next_version.setAutoRaise(True)
        self.next_version.setToolTip("The version after this one, with the replies it had")
        self.next_version.clicked.connect(lambda: self._switch_version(+1))
        for widget in (self.previous_version, self.version_label, self.next_version):
            row.addWidget(widget)
            widget.hide()
        row.addStretch(1)
        return row

    def _switch_version(self, step: int) -> None:
        if self.entry is not None and self.entry.versions is not None:
            self.version_requested.emit(self.entry, step)

    def set_entry(self, entry: Entry) -> None:
        super().set_entry(entry)
        versions = entry.versions
        for widget in (self.previous_version, self.version_label, self.next_version):
            widget.setVisible(versions is not None)
        if versions is not None:
            self.version_label.setText(f"{versions.position}/{versions.count}")
            self.version_label.setToolTip(f"Version {versions.position} of {versions.count} of this message")
            self.previous_version.setEnabled(versions.position > 1)
            self.next_version.setEnabled(versions.position < versions.count)
        self.context_button.setVisible(entry.context is not None)
        self.remember_button.setVisible(
            self._can_remember
            and entry.kind in ("user", "assistant")
            and entry.message_id is not None
            and bool(entry.text.strip())
        )
        status = STATUS_TEXT.get(entry.status, "")
        if entry.replaced:
            status = "Replaced (kept for reference; not sent)"
        elif entry.status == "streaming" and entry.activity and not entry.text:
            status = entry.activity  # what the reply waits for, before its first words
        self._status.set_full_text(f"· {status}" if status else "")
        self._status.setToolTip(status)
        error = entry.error if entry.error and entry.error != entry.text else None
        if entry.kind == "error":
            error = error or None
        self._error.setText(error or "")
        self._error.setVisible(bool(error))
        claim = ""
        if entry.kind == "assistant" and entry.status != "streaming" and entry.context is not None:
            claim = unbacked_claim(entry.text, entry.context.provenance)
        self.unbacked.setText(claim)
        self.unbacked.setVisible(bool(claim))
        if entry.status == "streaming":
            if not self._render_timer.isActive():
                self._render_timer.start(RENDER_INTERVAL_MS)
        else:
            self._render_timer.stop()
            self._render()

    def _edit(self) -> None:
        if self.entry is not None:
            self.edit_requested.emit(self.entry)

    def show_actions(self, *, can_regenerate: bool, can_edit: bool) -> None:
        """Regenerate (Retry after an error) on the newest reply; Edit on the user's messages."""
        entry = self.entry
        failed = entry is not None and (entry.kind == "error" or entry.status in ("error", "partial"))
        self.regenerate_button.setText("Retry" if failed else "Regenerate")
        self.regenerate_button.setVisible(can_regenerate)
        self.edit_button.setVisible(can_edit)

    def _render(self) -> None:
        if self.entry is None:
            return
        text = self.entry.text
        if self.entry.kind == "error":
            self.body.set_plain(text)
            self.body.setStyleSheet(
                f"QTextBrowser {{ background: transparent; border: none; color: {colors().error}; }}"
            )
            return
        if not text and self.entry.status == "streaming":
            self.body.set_plain("…")
            return
        self.body.set_markdown(text)

    def _copy(self) -> None:
        if self.entry is not None:
            QApplication.clipboard().setText(self.entry.text)

    def _remember(self) -> None:
        if self.entry is not None and self.entry.message_id is not None:
            self.remember_requested.emit(self.entry)

    def _view_context(self) -> None:
        if self.entry is not None and self.entry.context is not None:
            self.view_context_requested.emit(self.entry)


class NoticeWidget(EntryWidget):
    """A line from the app: a retry, a stopped reply, an error that is not a reply."""

    def __init__(self, entry: Entry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 2, 12, 2)
        self.badge = Badge("", "score")
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.badge, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.label, 1)
        self.set_entry(entry)

    def set_entry(self, entry: Entry) -> None:
        super().set_entry(entry)
        is_error = entry.status == "error"
        self.badge.set_kind(
            "Error" if is_error else "Retry" if entry.status == "retry" else "Note",
            "miss" if is_error else "score",
        )
        self.label.setText(entry.text)
        self.label.setStyleSheet(f"color: {colors().error};" if is_error else f"color: {colors().muted};")
