"""A reply that says it read a file when no tool was used says so beside it, in the chat itself
(not only in View Context); a grounded reply, or one claiming nothing, shows no such line."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from desktop.views.message_widgets import MessageWidget
from tests.support.desktop_driver import WAIT_MS, idle, screenshot, scripted, send


def last_reply(app: DesktopApp) -> MessageWidget:
    view = app.window.current_view()
    assert view is not None
    replies = [w for w in view.conversation._widgets if isinstance(w, MessageWidget) and w.entry is not None]
    widget = replies[-1]
    assert widget.entry is not None and widget.entry.kind == "assistant"
    return widget


def test_a_reply_claiming_to_have_read_a_file_no_tool_read_is_marked_beside_it(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    scripted(desktop).enqueue_reply("I have read notes.md and the launch is on 1 April.")
    send(qtbot, desktop, "when is the launch?")
    qtbot.waitUntil(lambda: idle(desktop) and not last_reply(desktop).unbacked.isHidden(), timeout=WAIT_MS)
    text = last_reply(desktop).unbacked.text()
    assert text.startswith("No tool was used for this reply, yet it says “I have read notes.md”")
    screenshot(desktop.window, "reply_unbacked_claim")

    scripted(desktop).enqueue_reply("A palindrome reads the same both ways.")
    send(qtbot, desktop, "what is a palindrome?")
    qtbot.waitUntil(lambda: idle(desktop) and "palindrome" in last_reply(desktop).entry.text, timeout=WAIT_MS)  # type: ignore[union-attr]
    assert last_reply(desktop).unbacked.isHidden()
