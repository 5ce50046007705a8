"""A sub-agent's own chat, read-only: every message and tool call it made, each reply with its
View Context, and its own sub-agents' chats one click further."""

from __future__ import annotations

from PySide6.QtCore import QSize, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from agent_core.errors import ContextDeskError
from agent_core.store.chats import ChatStore, StoredMessage
from desktop.bridge import CoreBridge
from desktop.models.conversation import ConversationModel
from desktop.theme import colors
from desktop.views.conversation_view import ConversationView
from desktop.views.window_geometry import fit_size

__all__ = ["SubagentTranscriptDialog"]


class SubagentTranscriptDialog(QDialog):
    view_context_requested = Signal(object)  # Entry of a reply
    transcript_requested = Signal(str, str)  # a nested sub-agent's chat id, title

    def __init__(
        self, bridge: CoreBridge, store: ChatStore, session_id: str, title: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.session_id = session_id
        self.setWindowTitle(f"Sub-agent chat — {title}")
        fit_size(self, QSize(760, 640))
        layout = QVBoxLayout(self)
        self.status = QLabel("Loading the sub-agent's chat…")
        self.status.setStyleSheet(f"color: {colors().muted};")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.model = ConversationModel(self)
        self.view = ConversationView(
            self.model, title.split(":", 1)[0], user_name="Task from the parent", read_only=True
        )
        self.view.view_context_requested.connect(self.view_context_requested)
        self.view.subagent_transcript_requested.connect(self.transcript_requested)
        layout.addWidget(self.view, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        bridge.call(store.messages, session_id, on_result=self._loaded, on_error=self._failed)

    def _loaded(self, messages: list[StoredMessage]) -> None:
        self.model.load(messages)
        turns = sum(1 for m in messages if m.role == "assistant")
        self.status.setText(
            f"Chat {self.session_id}: {turns} repl{'y' if turns == 1 else 'ies'}. "
            "It saw only what its View Context shows."
        )

    def _failed(self, error: BaseException) -> None:
        reason = str(error) if isinstance(error, ContextDeskError) else repr(error)
        self.status.setText(f"The sub-agent's chat could not be read: {reason}")
        self.status.setStyleSheet(f"color: {colors().error};")
