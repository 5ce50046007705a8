"""Asking the user for an ``${input:id}`` value of a tool server's settings (VS Code's inputs),
the first time a server needs it: a password field in a small dialog, shown on the GUI thread
while the server's start waits for the answer on the core thread. The value is then kept in
the system keyring by the core, never in the agent folder."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QInputDialog, QLineEdit, QWidget

from agent_core.agent.variables import InputRequest
from desktop.bridge import CoreBridge

__all__ = ["InputAsker"]

#: How long a server's start waits for the user to answer before it gives up (it then fails with
#: a message saying how to give the value).
ANSWER_TIMEOUT_SECONDS = 300.0


class InputAsker(QObject):
    asked = Signal(object)  # the QInputDialog shown (for tests and to raise it)

    def __init__(self, bridge: CoreBridge, parent_window: QWidget | None = None) -> None:
        super().__init__()
        self.bridge = bridge
        self.parent_window = parent_window

    def __call__(self, request: InputRequest) -> str | None:
        """The value the user typed, or None (cancelled, or no answer in time). Call it off the
        GUI thread: it waits for the answer."""
        answer: list[str | None] = [None]
        answered = threading.Event()

        def ask(_: object) -> None:
            dialog = QInputDialog(self.parent_window)
            dialog.setWindowTitle("A value for a tool server")
            dialog.setLabelText(
                f"{request.where} uses ${{input:{request.input_id}}}.\n"
                "Enter its value: it is kept in your system keyring, not in the agent's files."
            )
            dialog.setTextEchoMode(QLineEdit.EchoMode.Password)
            dialog.textValueSelected.connect(lambda text: answer.__setitem__(0, text or None))
            dialog.finished.connect(lambda _result: answered.set())
            dialog.open()
            self.asked.emit(dialog)

        self.bridge.emit_to_gui(ask, None)
        answered.wait(ANSWER_TIMEOUT_SECONDS)
        return answer[0]
