"""One widget per transcript row: user and assistant messages, tool calls, approvals, notices, and
compaction summaries (collapsible, editable)."""

from __future__ import annotations

import html
import json
from typing import Any, ClassVar

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QGraphicsOpacityEffect,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from agent_core.chat.events import ApprovalDecision
from agent_core.store.records import ToolCallRecord
from desktop.models.conversation import Entry
from desktop.models.tool_outcomes import TOOL_STATUS_TEXT, Tone, tone_of
from desktop.theme import colors
from desktop.views.common import Badge, ElidedLabel, MarkdownView
from desktop.views.rich_result import RichResultView
from desktop.views.sampling_approval import sampling_prompt_html, sampling_question
from desktop.views.tool_arguments import readable_arguments

__all__ = [
    "ApprovalWidget",
    "EntryWidget",
    "MessageWidget",
    "NoticeWidget",
    "SummaryWidget",
    "ToolCallWidget",
    "widget_for",
]

RENDER_INTERVAL_MS = 40  # re-render streaming markdown at most this often
DIMMED_OPACITY = 0.45
DIMMED_TIP = "Summarized: the model now sees the conversation summary instead of this message."

STATUS_TEXT = {
    "streaming": "Writing…",
    "cancelled": "Stopped",
    "partial": "Incomplete",
    "error": "Failed",
}


class EntryWidget(QFrame):
    """Base of the row widgets; :meth:`set_entry` is called on every ``dataChanged``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.entry: Entry | None = None

    def set_entry(self, entry: Entry) -> None:
        self.entry = entry
        self._set_dimmed(entry.dimmed)

    def _set_dimmed(self, dimmed: bool) -> None:
        if dimmed == isinstance(self.graphicsEffect(), QGraphicsOpacityEffect):
            return
        if dimmed:
            effect = QGraphicsOpacityEffect(self)
            effect.setOpacity(DIMMED_OPACITY)
            self.setGraphicsEffect(effect)
            self.setToolTip(DIMMED_TIP)
        else:
            self.setGraphicsEffect(None)  # type: ignore[arg-type]
            self.setToolTip("")

    @property
    def dimmed(self) -> bool:
        return isinstance(self.graphicsEffect(), QGraphicsOpacityEffect)


class MessageWidget(EntryWidget):
    """A user or assistant message (or an error reply), rendered as markdown."""

    view_context_requested = Signal(object)  # Entry (its context and message id)
    remember_requested = Signal(object)  # Entry: save (part of) this message as a memory
    regenerate_requested = Signal()  # answer the last message again (Retry after an error)
    edit_requested = Signal(object)  # Entry: a message of the user's, to edit and send again

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
        self.edit_button.setToolTip("Change this message and send it again; what followed is kept, dimmed")
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
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.timeout.connect(self._render)
        self.set_entry(entry)

    def set_entry(self, entry: Entry) -> None:
        super().set_entry(entry)
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


def _json(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


class ToolCallWidget(EntryWidget):
    """A tool call, collapsed to one line; expands to its arguments and result or error. What the
    result held beyond text (structured content, images, audio, resources) shows under the line."""

    resource_open_requested = Signal(object)  # ResultResource
    resource_attach_requested = Signal(object)  # ResultResource
    save_failed = Signal(str)

    def __init__(self, entry: Entry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rich: RichResultView | None = None
        palette = colors()
        self.setObjectName("toolcall")
        self.setStyleSheet(f"#toolcall {{ border: 1px solid {palette.border}; border-radius: 8px; }}")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setSpacing(4)
        self.toggle = QToolButton()
        self.toggle.setCheckable(True)
        self.toggle.setAutoRaise(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.toggle.toggled.connect(self._expand)
        layout.addWidget(self.toggle)
        # What the server reports of a running call: a bar when it knows the total, busy otherwise.
        self.progress = QProgressBar()
        self.progress.setTextVisible(False)
        self.progress.setFixedHeight(6)
        self.progress.hide()
        layout.addWidget(self.progress)
        self.details = QWidget()
        details = QVBoxLayout(self.details)
        details.setContentsMargins(20, 0, 0, 4)
        self.arguments = self._code_box()
        self.result = self._code_box()
        self._result_label = QLabel("Result")
        details.addWidget(QLabel("Arguments"))
        details.addWidget(self.arguments)
        details.addWidget(self._result_label)
        details.addWidget(self.result)
        self.details.hide()
        layout.addWidget(self.details)
        self._layout = layout
        self.set_entry(entry)

    def _code_box(self) -> QPlainTextEdit:
        box = QPlainTextEdit()
        box.setReadOnly(True)
        box.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        font = box.font()
        font.setFamily("monospace")
        font.setStyleHint(font.StyleHint.Monospace)
        box.setFont(font)
        return box

    def set_entry(self, entry: Entry) -> None:
        previous = self.entry
        super().set_entry(entry)
        record = entry.tool_call
        name = f"{record.server}.{record.tool}" if record and record.server else entry.text
        status = TOOL_STATUS_TEXT.get(entry.status, entry.status)
        elapsed = ""
        if record is not None and record.elapsed_seconds is not None:
            elapsed = f" in {record.elapsed_seconds:.2f} s"
        activity = f"  ({entry.activity})" if entry.activity else ""
        self.toggle.setText(f"Tool  {name}  —  {status}{elapsed}{activity}")
        self._show_progress(entry)
        if previous is not None and (previous.status, previous.tool_call) == (entry.status, record):
            return  # a progress report: only the line and the bar change (a style sheet costs a restyle)
        self.toggle.setStyleSheet(_tone_style(tone_of(entry.status)))
        if record is not None:
            self.arguments.setPlainText(_json(dict(record.arguments)))
            self.result.setPlainText(record.result)
            _fit_box(self.arguments)
            _fit_box(self.result)
            # A denied call did not fail: its "result" is what the model was told instead.
            label = "Error" if record.is_error else "Result"
            self._result_label.setText("Told to the model" if entry.status == "denied" else label)
            self._result_label.setVisible(bool(record.result))
            self.result.setVisible(bool(record.result))
            self._show_rich(record)

    def _show_rich(self, record: ToolCallRecord) -> None:
        """Build the rich view once the record has rich parts (rebuilt only when they change)."""
        if self.rich is not None and self.rich.record == record:
            return
        if self.rich is not None:
            self.rich.deleteLater()
            self.rich = None
        if record.structured is None and not record.parts and not record.structured_problem:
            return
        self.rich = RichResultView(record)
        self.rich.setContentsMargins(20, 0, 0, 4)
        self.rich.resource_open_requested.connect(self.resource_open_requested)
        self.rich.resource_attach_requested.connect(self.resource_attach_requested)
        self.rich.save_failed.connect(self.save_failed)
        self._layout.insertWidget(1, self.rich)

    def _expand(self, expanded: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.details.setVisible(expanded)

    def _show_progress(self, entry: Entry) -> None:
        reported = entry.progress if entry.status == "running" else None
        self.progress.setVisible(reported is not None)
        if reported is None:
            return
        fraction = reported.fraction
        if fraction is None:
            self.progress.setRange(0, 0)  # busy: the server does not say how much is left
        else:
            self.progress.setRange(0, 1000)
            self.progress.setValue(round(fraction * 1000))
        self.progress.setToolTip(reported.describe())


def _tone_style(tone: Tone) -> str:
    palette = colors()
    return {"error": f"color: {palette.error};", "warning": f"color: {palette.warning};"}.get(tone, "")


def _fit_box(box: QPlainTextEdit, max_lines: int = 12) -> None:
    lines = min(max_lines, max(1, box.toPlainText().count("\n") + 1))
    box.setFixedHeight(box.fontMetrics().lineSpacing() * lines + 14)


class ApprovalWidget(EntryWidget):
    """Asks whether a tool may run: Allow once, Allow for this chat, Deny. While it waits it has
    the keyboard: Enter allows once, Ctrl+Enter for the chat, Esc denies."""

    decided = Signal(object)  # ApprovalDecision

    DECISION_TEXT: ClassVar[dict[str, str]] = {
        "allow_once": "Allowed once",
        "allow_for_chat": "Allowed for this chat",
        "deny": "Denied by you",
        "cancelled": "Not answered (the reply was stopped)",
        "expired": "Not answered: the tool call ended first, so it was refused",
    }

    def __init__(self, entry: Entry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        palette = colors()
        self.setObjectName("approval")
        self.setStyleSheet(
            f"#approval {{ background-color: {palette.warning_background}; border: 1px solid {palette.border}; border-radius: 10px; }}"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        self.question = QLabel()
        self.question.setWordWrap(True)
        self.question.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.question)
        self.arguments = QLabel()
        self.arguments.setWordWrap(True)
        self.arguments.setTextFormat(Qt.TextFormat.RichText)
        self.arguments.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.arguments)
        self.caution = QLabel()
        self.caution.setWordWrap(True)
        self.caution.setStyleSheet(f"color: {colors().warning}; font-weight: 600;")
        self.caution.hide()
        layout.addWidget(self.caution)
        buttons = QHBoxLayout()
        self.allow_once = QPushButton("Allow once")
        self.allow_once.setToolTip("Enter")
        self.allow_chat = QPushButton("Allow for this chat")
        self.allow_chat.setToolTip("Ctrl+Enter")
        self.deny = QPushButton("Deny")
        self.deny.setToolTip("Esc")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.allow_once.setDefault(True)
        self.allow_once.clicked.connect(lambda: self.decided.emit(ApprovalDecision.ALLOW_ONCE))
        self.allow_chat.clicked.connect(lambda: self.decided.emit(ApprovalDecision.ALLOW_FOR_CHAT))
        self.deny.clicked.connect(lambda: self.decided.emit(ApprovalDecision.DENY))
        for button in (self.allow_once, self.allow_chat, self.deny):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.outcome = QLabel()
        self.outcome.setStyleSheet("font-weight: 600;")
        buttons.addWidget(self.outcome)
        layout.addLayout(buttons)
        self.set_entry(entry)

    def set_entry(self, entry: Entry) -> None:
        super().set_entry(entry)
        approval = entry.approval
        asker = approval.asker if approval is not None else ""
        kind, _, name = asker.partition(" ")
        who = f"The {kind.lower()} <b>{html.escape(name)}</b>" if asker else "The assistant"
        # What the call acts on, when its arguments do not say (the workspace's folder).
        target = f" {html.escape(approval.target)}" if approval is not None and approval.target else ""
        self.question.setText(f"{who} wants to run <b>{html.escape(entry.text)}</b>{target}. Allow it?")
        in_sub_agent = asker.startswith("Sub-agent")
        self.allow_chat.setText("Allow for this sub-agent's chat" if in_sub_agent else "Allow for this chat")
        sampling = approval is not None and approval.sampling is not None
        if approval is not None and approval.sampling is not None:
            # A server asking for a model reply: its prompt is what the user decides on.
            self.question.setText(sampling_question(approval))
            self.allow_chat.setText("Always for this server")
            self.allow_chat.setToolTip(
                "Ctrl+Enter: this server's requests are answered without asking, in this chat"
            )
            self.arguments.setText(sampling_prompt_html(approval, colors().muted))
            self.arguments.setToolTip(approval.sampling.prompt)
            self.arguments.setVisible(True)
        elif entry.tool_call is not None:
            arguments = dict(entry.tool_call.arguments)
            self.arguments.setText(readable_arguments(arguments, colors().muted) or "No arguments.")
            self.arguments.setToolTip(_json(arguments) if arguments else "")
            self.arguments.setVisible(bool(arguments) or not target)
        pending = entry.decision is None and entry.status == "pending"
        caution = approval.caution if approval is not None else ""
        self.caution.setText(f"⚠ {caution}" if caution else "")
        self.caution.setVisible(bool(caution) and pending)
        for button in (self.allow_once, self.allow_chat, self.deny):
            button.setVisible(pending)
        key = entry.decision.value if entry.decision is not None else entry.status
        outcome = self.DECISION_TEXT.get(key, key)
        if sampling and key == ApprovalDecision.ALLOW_FOR_CHAT.value:
            outcome = "Allowed for this server"
        self.outcome.setText("" if pending else outcome)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus if pending else Qt.FocusPolicy.NoFocus)
        if pending:
            QTimer.singleShot(0, self._take_focus)  # once shown: the answer is one key away

    def _take_focus(self) -> None:
        if self.isVisible() and self.focusPolicy() != Qt.FocusPolicy.NoFocus:
            self.setFocus(Qt.FocusReason.OtherFocusReason)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        QTimer.singleShot(0, self._take_focus)  # appearing while it waits: it takes the keyboard

    def _decision_for(self, event: QKeyEvent) -> ApprovalDecision | None:
        if self.focusPolicy() == Qt.FocusPolicy.NoFocus:
            return None  # answered already
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            control = event.modifiers() & Qt.KeyboardModifier.ControlModifier
            return ApprovalDecision.ALLOW_FOR_CHAT if control else ApprovalDecision.ALLOW_ONCE
        if event.key() == Qt.Key.Key_Escape:
            return ApprovalDecision.DENY
        return None

    def event(self, event: QEvent) -> bool:
        # Esc also stops the reply (a window shortcut): while this card has the keyboard, it denies.
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and self._decision_for(event) is not None
        ):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        decision = self._decision_for(event)
        if decision is None:
            super().keyPressEvent(event)
            return
        event.accept()
        self.decided.emit(decision)

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self._show_focus(True)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self._show_focus(False)

    def _show_focus(self, focused: bool) -> None:
        palette = colors()
        border = f"2px solid {palette.link}" if focused else f"1px solid {palette.border}"
        self.setStyleSheet(
            f"#approval {{ background-color: {palette.warning_background}; border: {border}; border-radius: 10px; }}"
        )


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


class SummaryWidget(EntryWidget):
    """ "Conversation so far — summarizes N earlier messages": collapsed, expandable, editable;
    just after a compaction, open and with Undo."""

    edited = Signal(str)
    undo_requested = Signal()

    def __init__(self, entry: Entry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        palette = colors()
        self.setObjectName("summary")
        self.setStyleSheet(
            f"#summary {{ border: 1px dashed {palette.border}; border-radius: 10px;"
            f" background-color: {palette.inline_code_background}; }}"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 6)
        layout.setSpacing(4)
        header = QHBoxLayout()
        self.toggle = QToolButton()
        self.toggle.setCheckable(True)
        self.toggle.setAutoRaise(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.toggle.setToolTip("The model sees this summary instead of the dimmed messages above it")
        self.toggle.setStyleSheet("QToolButton { border: none; background: transparent; font-weight: 600; }")
        self.toggle.toggled.connect(self._expand)
        self.edit_button = QPushButton("Edit")
        self.edit_button.setFlat(True)
        self.edit_button.setToolTip("Correct the summary: the next message uses your text")
        self.edit_button.clicked.connect(self.start_editing)
        self.undo_button = QPushButton("Undo")
        self.undo_button.setFlat(True)
        self.undo_button.setToolTip("Take the compaction back: the covered messages are sent again")
        self.undo_button.clicked.connect(self.undo_requested)
        self.undo_button.hide()
        header.addWidget(self.toggle, 1)
        header.addWidget(self.undo_button)
        header.addWidget(self.edit_button)
        layout.addLayout(header)
        self.body = MarkdownView()
        self.body.hide()
        layout.addWidget(self.body)
        self.editor = QPlainTextEdit()
        self.editor.setMinimumHeight(120)
        self.editor.hide()
        layout.addWidget(self.editor)
        self.edit_buttons = QWidget()
        buttons = QHBoxLayout(self.edit_buttons)
        buttons.setContentsMargins(0, 0, 0, 0)
        self.save_button = QPushButton("Save")
        self.save_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel")
        self.save_button.clicked.connect(self._save)
        self.cancel_button.clicked.connect(self._stop_editing)
        buttons.addStretch(1)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.save_button)
        self.edit_buttons.hide()
        layout.addWidget(self.edit_buttons)
        self.set_entry(entry)

    def set_entry(self, entry: Entry) -> None:
        super().set_entry(entry)
        how = " (compacted automatically)" if entry.automatic else ""
        plural = "" if entry.covered == 1 else "s"
        self.toggle.setText(f"Conversation so far{how} — summarizes {entry.covered} earlier message{plural}")
        self.body.set_markdown(entry.text)
        self.edit_button.setVisible(not entry.dimmed and entry.message is not None)
        self.undo_button.setVisible(entry.fresh and not entry.dimmed and entry.message is not None)
        if entry.fresh and not self.toggle.isChecked():
            self.toggle.setChecked(True)  # just made: show what now stands for the turns

    @property
    def editing(self) -> bool:
        return not self.editor.isHidden()

    def _expand(self, expanded: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        self.body.setVisible(expanded and not self.editing)

    def start_editing(self) -> None:
        if self.entry is None:
            return
        self.toggle.setChecked(True)
        self.editor.setPlainText(self.entry.text)
        self.body.hide()
        self.editor.show()
        self.edit_buttons.show()
        self.edit_button.hide()
        self.editor.setFocus(Qt.FocusReason.OtherFocusReason)

    def _stop_editing(self) -> None:
        self.editor.hide()
        self.edit_buttons.hide()
        self.body.setVisible(self.toggle.isChecked())
        self.edit_button.setVisible(self.entry is not None and not self.entry.dimmed)

    def _save(self) -> None:
        text = self.editor.toPlainText().strip()
        self._stop_editing()
        if text and self.entry is not None and text != self.entry.text:
            self.edited.emit(text)


def widget_for(
    entry: Entry, agent_name: str, *, user_name: str = "You", read_only: bool = False
) -> EntryWidget:
    if entry.kind == "summary":
        return SummaryWidget(entry)
    if entry.kind in ("user", "assistant", "error"):
        return MessageWidget(entry, agent_name, user_name=user_name, can_remember=not read_only)
    if entry.kind == "tool_call":
        return ToolCallWidget(entry)
    if entry.kind == "approval":
        return ApprovalWidget(entry)
    return NoticeWidget(entry)
