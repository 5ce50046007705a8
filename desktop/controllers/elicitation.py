"""Asking the user what a tool server asks for: a form or a link, in a dialog the core awaits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from desktop.bridge import CoreBridge
from desktop.controllers.dialog_answer import dialog_answer

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

        def make() -> ElicitationDialog | UrlElicitationDialog:
            from desktop.dialogs.elicitation import ElicitationDialog, UrlElicitationDialog

            if request.mode == "form":
                return ElicitationDialog(request, self.parent_window)
            return UrlElicitationDialog(request, self.parent_window)

        answer: ElicitationAnswer = await dialog_answer(self.bridge, make, self.asked.emit)
        return answer
