"""Asking the user to sign in to an OAuth tool server: the core awaits a future, the GUI shows the dialog.

The core awaits the dialog's answer (desktop/controllers/dialog_answer.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from desktop.bridge import CoreBridge
from desktop.controllers.dialog_answer import dialog_answer

if TYPE_CHECKING:
    # The MCP package (and its SDK) loads with the first server, not with the window.
    from agent_core.mcp.oauth import SignInRequest
    from desktop.dialogs.sign_in import SignInDialog

__all__ = ["SignInAsker"]


class SignInAsker(QObject):
    asked = Signal(object)  # the dialog shown (for tests and to raise it)

    def __init__(self, bridge: CoreBridge, parent_window: QWidget | None = None) -> None:
        super().__init__()
        self.bridge = bridge
        self.parent_window = parent_window
        # How a URL is opened once the user chose to (the system's browser; tests put a stand-in here).
        self.open_url: Callable[[str], None] | None = None

    async def __call__(self, request: SignInRequest) -> bool:
        """True once the user chose Open in browser; cancelling the wait closes the dialog."""

        def make() -> SignInDialog:
            from desktop.dialogs.sign_in import SignInDialog, open_in_browser

            return SignInDialog(request, self.parent_window, open_url=self.open_url or open_in_browser)

        chosen: bool = await dialog_answer(self.bridge, make, self.asked.emit)
        return chosen
