"""A tool server's ``${input:id}`` value asked in a dialog while the server's start waits on
another thread: typed (as a password), or cancelled."""

from __future__ import annotations

import threading

from PySide6.QtWidgets import QInputDialog, QLineEdit
from pytestqt.qtbot import QtBot

from agent_core.agent.variables import InputRequest
from desktop.bridge import CoreBridge
from desktop.controllers.input_values import InputAsker
from tests.support.desktop_driver import WAIT_MS


def ask_from_a_worker(asker: InputAsker) -> tuple[threading.Thread, list[str | None]]:
    result: list[str | None] = []
    worker = threading.Thread(
        target=lambda: result.append(asker(InputRequest("api-key", "MCP server 'github': env GITHUB_TOKEN")))
    )
    worker.start()
    return worker, result


def test_the_value_is_asked_as_a_password_and_handed_to_the_waiting_start(qtbot: QtBot) -> None:
    bridge = CoreBridge()
    asker = InputAsker(bridge)
    try:
        with qtbot.waitSignal(asker.asked, timeout=WAIT_MS) as shown:
            worker, result = ask_from_a_worker(asker)
        dialog = shown.args[0]
        assert isinstance(dialog, QInputDialog)
        assert dialog.textEchoMode() == QLineEdit.EchoMode.Password
        assert "${input:api-key}" in dialog.labelText() and "github" in dialog.labelText()
        dialog.setTextValue("ghp_typed")
        dialog.accept()
        worker.join(WAIT_MS / 1000)
        assert result == ["ghp_typed"]

        with qtbot.waitSignal(asker.asked, timeout=WAIT_MS) as shown:
            worker, result = ask_from_a_worker(asker)
        shown.args[0].reject()
        worker.join(WAIT_MS / 1000)
        assert result == [None]  # the server's start then fails saying how to give the value
    finally:
        bridge.shutdown()
