"""The transcript's approval card: may a tool run (or a server's sampling request be answered)?
Allow once, Allow for this chat, Deny; it has the keyboard while it waits."""

from __future__ import annotations

import html
from typing import ClassVar

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from agent_core.chat.events import APP_ORIGIN, ApprovalDecision
from agent_core.workflows.tools import WORKFLOW_SERVER
from desktop.models.conversation_entries import Entry
from desktop.theme import colors
from desktop.views.entry_widget import EntryWidget, json_text
from desktop.views.sampling_approval import sampling_prompt_html, sampling_question
from desktop.views.tool_arguments import readable_arguments

__all__ = ["ApprovalWidget"]


class ApprovalWidget(EntryWidget):
    """Asks whether a tool may run: Allow once, Allow for this chat, Deny. While it waits it has
    the keyboard: Enter allows once, Ctrl+Enter for the chat, Esc denies."""

    decided = Signal(object)  # ApprovalDecision
    model_pick_requested = Signal()  # "Pick another model" (after DENY): the chat's model box

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
        # On a model too small for a sub-agent or a workflow: the same choice as elsewhere.
        self.pick_model = QPushButton("Pick another model")
        self.pick_model.clicked.connect(self._pick_another_model)
        for button in (self.allow_once, self.allow_chat, self.deny, self.pick_model):
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
        if approval is not None and approval.origin == APP_ORIGIN:  # a tool's view (MCP App)
            who = f"The app view of <b>{html.escape(approval.server)}</b>"
        # What the call acts on, when its arguments do not say (the workspace's folder).
        target = f" {html.escape(approval.target)}" if approval is not None and approval.target else ""
        self.question.setText(f"{who} wants to run <b>{html.escape(entry.text)}</b>{target}. Allow it?")
        if (
            approval is not None
            and approval.server == WORKFLOW_SERVER
            and asker == f"Workflow {approval.tool}"
        ):
            # Asked before a workflow runs at all (its model may be too small): the question is the run.
            self.question.setText(f"Run the workflow <b>{html.escape(approval.tool)}</b>?")
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
            self.arguments.setToolTip(json_text(arguments) if arguments else "")
            self.arguments.setVisible(bool(arguments) or not target)
        pending = entry.decision is None and entry.status == "pending"
        caution = approval.caution if approval is not None else ""
        self.caution.setText(f"⚠ {caution}" if caution else "")
        self.caution.setVisible(bool(caution) and pending)
        for button in (self.allow_once, self.allow_chat, self.deny):
            button.setVisible(pending)
        self.pick_model.setVisible(pending and approval is not None and approval.model_limited)
        # A tool asked about before every call (a skill's script) is never allowed for the chat.
        self.allow_chat.setVisible(pending and not (approval is not None and approval.every_call))
        key = entry.decision.value if entry.decision is not None else entry.status
        outcome = self.DECISION_TEXT.get(key, key)
        if sampling and key == ApprovalDecision.ALLOW_FOR_CHAT.value:
            outcome = "Allowed for this server"
        self.outcome.setText("" if pending else outcome)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus if pending else Qt.FocusPolicy.NoFocus)
        if pending:
            QTimer.singleShot(0, self._take_focus)  # once shown: the answer is one key away

    def _pick_another_model(self) -> None:
        self.decided.emit(ApprovalDecision.DENY)
        self.model_pick_requested.emit()

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
            return (
                ApprovalDecision.ALLOW_FOR_CHAT
                if control and self.allow_chat.isVisibleTo(self)
                else ApprovalDecision.ALLOW_ONCE
            )
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
