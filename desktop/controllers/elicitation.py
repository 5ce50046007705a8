"""Asking the user what a tool server asks for: the core awaits a future, the GUI shows the dialog.

The handler runs on the core's event loop; the dialog is built and answered on the GUI thread,
whose answer resolves the future through the loop. Neither thread ever waits for the other.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from desktop.bridge import CoreBridge

if TYPE_CHECKING:
    # The MCP package (and its SDK) loads with the first server, not with the window.
    from agent_core.mcp.elicitation import ElicitationAnswer, ElicitationRequest
    from desktop.dialogs.elicitation import ElicitationDialog, UrlElicitationDialog

__all__ = ["ElicitationAsker"]


class ElicitationAsker(QObject):
    asked = Signal(object)  # the dialog shown (for tests and to raise it)

    def __init__(self, bridge: CoreBridge, parent_window: QWidget | None = None) -> None:
        super().__init__()
        self.bridge = bridge
        self.parent_window = parent_window

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        """The user's answer; cancelling the wait (the server gave up, the app closes) closes the dialog."""
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[ElicitationAnswer] = loop.create_future()
        shown: list[ElicitationDialog | UrlElicitationDialog] = []

        def resolve(answer: ElicitationAnswer) -> None:
            if not answered.done():
                answered.set_result(answer)

        def show(_: object) -> None:
            from desktop.dialogs.elicitation import ElicitationDialog, UrlElicitationDialog

            dialog: ElicitationDialog | UrlElicitationDialog
            if request.mode == "form":
                dialog = ElicitationDialog(request, self.parent_window)
            else:
                dialog = UrlElicitationDialog(request, self.parent_window)
            dialog.answered.connect(lambda answer: loop.call_soon_threadsafe(resolve, answer))
            shown.append(dialog)
            dialog.open()
            self.asked.emit(dialog)

        def close(_: object) -> None:
            for dialog in shown:
                dialog.done(0)

        self.bridge.emit_to_gui(show, None)
        try:
            return await answered
        finally:
            if not answered.done() or answered.cancelled():
                self.bridge.emit_to_gui(close, None)
