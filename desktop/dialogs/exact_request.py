"""Show exact request: what one reply's model turn was sent, as kept when it was sent, read-only
and copyable (credentials masked by the core before it was written). Characters a reader would not
see are shown as markers (⟨U+200B⟩); Copy all copies the text as it was sent."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSize, Signal
from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.skill_files.hidden_text import mark_unseen
from agent_core.errors import ContextDeskError
from agent_core.store.sent_requests import SentRequest
from desktop.bridge import CoreBridge
from desktop.dialogs.skill_file import marked_note
from desktop.theme import colors
from desktop.views.window_geometry import fit_size

__all__ = ["ExactRequestDialog"]

ABOUT = (
    "What ContextDesk handed to the provider for this reply, kept when it was sent: the system prompt "
    "with the rules and references, the history, the message with its selected items, earlier turns of "
    "this reply, and the tool definitions. The provider puts it in its own API's format. Credentials "
    "(API keys, tokens, passwords in links) are masked as ***."
)
NOT_KEPT = (
    "No exact request was kept for this reply. ContextDesk keeps one for each of a chat's 50 newest "
    "replies; older replies, replies saved by an earlier version, and replies that stopped before "
    "reaching the model have none. "
    "View Context still shows what the request held and what each part cost."
)


class ExactRequestDialog(QDialog):
    loaded = Signal()  # the request (or why there is none) is shown

    def __init__(
        self, bridge: CoreBridge, read: Callable[[], SentRequest | None], parent: QWidget | None = None
    ) -> None:
        """``read`` gets the kept request from the store; it runs off the GUI thread."""
        super().__init__(parent)
        self.setWindowTitle("Exact request")
        fit_size(self, QSize(900, 680))
        palette = colors()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 14, 16, 12)
        self.about = QLabel(ABOUT)
        self.about.setWordWrap(True)
        self.about.setStyleSheet(f"color: {palette.muted};")
        layout.addWidget(self.about)
        self.shortened = QLabel()
        self.shortened.setWordWrap(True)
        self.shortened.setStyleSheet(
            f"background-color: {palette.warning_background}; padding: 6px; border-radius: 6px;"
        )
        self.shortened.hide()
        layout.addWidget(self.shortened)
        self.hidden_note = QLabel()
        self.hidden_note.setWordWrap(True)
        self.hidden_note.setStyleSheet(self.shortened.styleSheet())
        self.hidden_note.hide()
        layout.addWidget(self.hidden_note)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setPlaceholderText("Reading the request…")
        layout.addWidget(self.text, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.copy_button = QPushButton("Copy all")
        self.copy_button.setToolTip(
            "Copy the whole request to the clipboard, as it was sent (hidden characters as they are)"
        )
        self.copy_button.setEnabled(False)
        self.copy_button.clicked.connect(self.copy_all)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        layout.addWidget(buttons)
        self.request: SentRequest | None = None
        bridge.call(read, on_result=self._show, on_error=self._failed)

    def copy_all(self) -> None:
        sent = self.request.as_text() if self.request is not None else self.text.toPlainText()
        QGuiApplication.clipboard().setText(sent)

    def _show(self, request: SentRequest | None) -> None:
        self.request = request
        if request is None:
            self.text.setPlainText(NOT_KEPT)
        else:
            shown, hidden = mark_unseen(request.as_text())
            self.text.setPlainText(shown)
            self.hidden_note.setText(marked_note(hidden))
            self.hidden_note.setVisible(hidden > 0)
            self.copy_button.setEnabled(True)
            if request.characters_left_out:
                self.shortened.setText(
                    f"{request.characters_left_out:,} characters of the longest parts were left out of this "
                    "record to keep it small; the places are marked. The model got them whole."
                )
                self.shortened.show()
        self.loaded.emit()

    def _failed(self, error: BaseException) -> None:
        reason = str(error) if isinstance(error, ContextDeskError) else repr(error)
        self.text.setPlainText(f"The kept request could not be read: {reason}")
        self.loaded.emit()
