"""The OAuth sign-in a remote tool server asks for: its whole URL, opened only when the user chooses."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSize, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QTextOption
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from agent_core.mcp.oauth import SignInRequest
from desktop.theme import colors
from desktop.views.window_geometry import fit_size

__all__ = ["SignInDialog", "open_in_browser"]


def open_in_browser(url: str) -> None:
    QDesktopServices.openUrl(QUrl(url))


def _label(text: str, *, muted: bool = False) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)  # a server's words, never markup
    label.setWordWrap(True)
    if muted:
        label.setStyleSheet(f"color: {colors().muted};")
    return label


class SignInDialog(QDialog):
    """Open in browser (then wait for the browser to come back) or Cancel. ``answered`` carries the choice."""

    answered = Signal(bool)

    def __init__(
        self,
        request: SignInRequest,
        parent: QWidget | None = None,
        *,
        open_url: Callable[[str], None] = open_in_browser,
    ) -> None:
        super().__init__(parent)
        self.request = request
        self._open_url = open_url
        self.setWindowTitle(f"Sign in to {request.server}")
        fit_size(self, QSize(580, 340))
        layout = QVBoxLayout(self)
        host = QUrl(request.server_url).host()
        layout.addWidget(
            _label(f"The tool server '{request.server}' ({host}) needs you to sign in before it can be used.")
        )
        sign_in_host = QUrl(request.url).host()
        layout.addWidget(_label(f"Its sign-in page is on {sign_in_host}:"))
        # In full, read-only: what would open is what is seen.
        self.url = QPlainTextEdit(request.url)
        self.url.setReadOnly(True)
        self.url.setWordWrapMode(QTextOption.WrapMode.WrapAnywhere)
        self.url.setMinimumHeight(self.url.fontMetrics().lineSpacing() * 4 + 12)
        self.url.setStyleSheet(f"color: {colors().link}; font-family: monospace;")
        layout.addWidget(self.url, 1)  # a sign-in URL is long: it takes the dialog's spare height
        layout.addWidget(
            _label(
                "Nothing is opened unless you choose Open in browser. The tokens you get are kept in the "
                "system keyring, never in the agent's files.",
                muted=True,
            )
        )
        buttons = QDialogButtonBox()
        self.open_button: QPushButton = buttons.addButton(
            "Open in browser", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.cancel_button: QPushButton = buttons.addButton("Cancel", QDialogButtonBox.ButtonRole.RejectRole)
        self.open_button.clicked.connect(self._open)
        self.cancel_button.clicked.connect(self.reject)
        layout.addWidget(buttons)
        self.open_button.setAutoDefault(False)  # Return must not open a page
        self.cancel_button.setDefault(True)
        self._done = False

    def _open(self) -> None:
        self._open_url(self.request.url)
        self._finish(True)

    def _finish(self, chosen: bool) -> None:
        if not self._done:
            self._done = True
            self.answered.emit(chosen)
        self.done(QDialog.DialogCode.Accepted if chosen else QDialog.DialogCode.Rejected)

    def reject(self) -> None:
        self._finish(False)
