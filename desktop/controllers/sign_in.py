"""Asking the user to sign in to an OAuth tool server: the core awaits a future, the GUI shows the dialog.

Like the elicitation asker: the handler runs on the core's event loop, the dialog lives on the GUI
thread, and neither thread waits for the other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from desktop.bridge import CoreBridge

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
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[bool] = loop.create_future()
        shown: list[SignInDialog] = []

        def resolve(chosen: bool) -> None:
            if not answered.done():
                answered.set_result(chosen)

        def show(_: object) -> None:
            from desktop.dialogs.sign_in import SignInDialog, open_in_browser

            dialog = SignInDialog(request, self.parent_window, open_url=self.open_url or open_in_browser)
            dialog.answered.connect(lambda chosen: loop.call_soon_threadsafe(resolve, chosen))
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
