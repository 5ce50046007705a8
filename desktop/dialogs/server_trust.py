"""Trust and start, or don't: the MCP servers of an agent folder the user has not trusted yet, each
with exactly what it runs (or connects to), before any of them starts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QResizeEvent, QTextOption
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

__all__ = ["ServerTrustDialog", "WholeText"]


class WholeText(QPlainTextEdit):
    """Read-only, selectable text that is always as tall as its wrapped lines: a command line is
    never partly hidden behind a scroll bar (the dialog's own list scrolls when there are many)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.setReadOnly(True)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAnywhere)
        self.setStyleSheet("font-family: monospace;")
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()  # a new width wraps the lines anew

    def _fit(self) -> None:
        lines = 0
        block = self.document().firstBlock()
        while block.isValid():
            lines += max(1, block.layout().lineCount()) if block.layout() is not None else 1
            block = block.next()
        margins = self.contentsMargins()
        height = (
            lines * self.fontMetrics().lineSpacing()
            + int(2 * self.document().documentMargin())
            + margins.top()
            + margins.bottom()
            + 2
        )
        if height != self.height():
            self.setFixedHeight(height)


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
        self.command_lines: dict[str, WholeText] = {}
        for server in self.servers:
            rows.addWidget(_label(f"{server.name} ({server.config.type}):"))
            # In full, read-only and selectable: what is shown is what would run.
            shown = WholeText(server.launch)
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
