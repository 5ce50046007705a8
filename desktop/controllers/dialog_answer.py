"""A core coroutine awaiting the answer of a dialog shown on the GUI thread.

The coroutine runs on the core's event loop; the dialog is built and answered on the GUI thread,
whose answer resolves the future through the loop. Neither thread ever waits for the other, and
cancelling the wait (the server gave up, the app closes) closes the dialog.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from desktop.bridge import CoreBridge

__all__ = ["AnsweringDialog", "dialog_answer"]

T = TypeVar("T")


class AnsweringDialog(Protocol):
    @property
    def answered(self) -> Any: ...  # a Signal carrying the answer
    def open(self) -> None: ...
    def done(self, result: int) -> None: ...


async def dialog_answer(
    bridge: CoreBridge, make_dialog: Callable[[], AnsweringDialog], shown: Callable[[Any], None]
) -> T:
    """The answer of the dialog ``make_dialog`` builds (on the GUI thread; ``shown`` gets it)."""
    loop = asyncio.get_running_loop()
    answered: asyncio.Future[T] = loop.create_future()
    dialogs: list[AnsweringDialog] = []

    def resolve(answer: T) -> None:
        if not answered.done():
            answered.set_result(answer)

    def show(_: object) -> None:
        dialog = make_dialog()
        dialog.answered.connect(lambda answer: loop.call_soon_threadsafe(resolve, answer))
        dialogs.append(dialog)
        dialog.open()
        shown(dialog)

    def close(_: object) -> None:
        for dialog in dialogs:
            dialog.done(0)

    bridge.emit_to_gui(show, None)
    try:
        return await answered
    finally:
        if not answered.done() or answered.cancelled():
            bridge.emit_to_gui(close, None)
