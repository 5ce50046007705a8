"""Trust and start, or don't: the MCP servers of an agent folder the user has not trusted yet, each
with exactly what it runs (or connects to), before any of them starts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QTextOption
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.server_trust import UntrustedServer
from desktop.theme import colors
from desktop.views.window_geometry import fit_size

__all__ = ["ServerTrustDialog"]


def _label(text: str, *, muted: bool = False) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)  # names from the agent's files, never markup
    label.setWordWrap(True)
    if muted:
        label.setStyleSheet(f"color: {colors().muted};")
    return label


class ServerTrustDialog(QDialog):
    """Trust and start, or Don't start (the default). ``answered`` carries the choice."""

    answered = Signal(bool)

    def __init__(
        self, servers: Sequence[UntrustedServer], agent_root: Path, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.servers = list(servers)
        self.setWindowTitle("Start this agent's tool servers?")
        fit_size(self, QSize(640, 420))
        layout = QVBoxLayout(self)
        several = len(self.servers) > 1
        layout.addWidget(
            _label(
                f"The agent in {agent_root} names {'these tool servers' if several else 'a tool server'} "
                f"you have not trusted yet. {'They run' if several else 'It runs'} on this computer with "
                "your permissions: start only what you trust."
            )
        )
        body = QWidget()
        rows = QVBoxLayout(body)
        self.command_lines: dict[str, QPlainTextEdit] = {}
        for server in self.servers:
            rows.addWidget(_label(f"{server.name} ({server.config.type}):"))
            # In full, read-only and selectable: what is shown is what would run.
            shown = QPlainTextEdit(server.launch)
            shown.setReadOnly(True)
            shown.setWordWrapMode(QTextOption.WrapMode.WrapAnywhere)
            shown.setStyleSheet("font-family: monospace;")
            lines = min(server.launch.count("\n") + 2, 6)
            shown.setFixedHeight(shown.fontMetrics().lineSpacing() * lines + 14)
            rows.addWidget(shown)
            self.command_lines[server.name] = shown
        rows.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        layout.addWidget(scroll, 1)
        layout.addWidget(
            _label(
                "Your choice is kept: trusted servers start from now on, until what they run changes. "
                "Don't start leaves them off (the agent works without their tools); Restart in Tools asks again.",
                muted=True,
            )
        )
        buttons = QDialogButtonBox()
        self.trust_button: QPushButton = buttons.addButton(
            "Trust and start", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.dont_button: QPushButton = buttons.addButton(
            "Don't start", QDialogButtonBox.ButtonRole.RejectRole
        )
        self.trust_button.clicked.connect(lambda: self._finish(True))
        self.dont_button.clicked.connect(self.reject)
        layout.addWidget(buttons)
        self.trust_button.setAutoDefault(False)  # Return must not start anything
        self.dont_button.setDefault(True)
        self._done = False

    def _finish(self, trusted: bool) -> None:
        if not self._done:
            self._done = True
            self.answered.emit(trusted)
        self.done(QDialog.DialogCode.Accepted if trusted else QDialog.DialogCode.Rejected)

    def reject(self) -> None:
        self._finish(False)
