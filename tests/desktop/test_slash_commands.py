"""The ``/`` list of the message box: the desktop's own commands and the core's (``/run``), each
with what it does, and ``/remember`` saving a memory at once without asking the model."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from agent_core.workflows.run_command import RunCommand
from desktop.app import DesktopApp
from desktop.views.memory_chip import MemoryChip
from tests.support.desktop_driver import WAIT_MS, send


def _popup_first(qtbot: QtBot, desktop: DesktopApp, typed: str) -> str:
    view = desktop.window.current_view()
    assert view is not None
    composer = view.composer
    composer.clear()
    desktop.window.activateWindow()
    composer.setFocus()
    qtbot.keyClicks(composer, typed)
    composer._update_popup()
    popup = composer.completer.popup()
    assert popup is not None
    qtbot.waitUntil(popup.isVisible, timeout=WAIT_MS)
    return str(composer.completer.completionModel().index(0, 0).data())


def test_the_slash_list_offers_run_from_the_chats_commands_and_remember(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    view = desktop.window.current_view()
    assert view is not None
    commands = view.composer.commands()
    assert commands["/run"] == RunCommand.summary  # the core's words, not a second copy
    assert "/remember" in commands and "/compact" in commands
    assert _popup_first(qtbot, desktop, "/run") == f"/run  —  {RunCommand.summary}"
    assert _popup_first(qtbot, desktop, "/rem").startswith("/remember  —  save a memory")


def test_remember_typed_in_the_box_saves_a_memory_and_sends_nothing_to_the_model(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    workspace = desktop.host.workspace
    assert workspace is not None
    workspace.selector.start_loading()
    qtbot.waitUntil(workspace.selector.model_ready, timeout=60_000)
    book = workspace.memories.book_for(workspace.agent)
    view = desktop.window.current_view()
    assert view is not None

    send(qtbot, desktop, "/remember our staging server is staging.kestrel.io")

    def chips() -> list[MemoryChip]:
        return [w for w in view.conversation.widgets() if isinstance(w, MemoryChip)]

    qtbot.waitUntil(lambda: len(chips()) == 1, timeout=WAIT_MS)
    saved = chips()[0].entry.memory
    assert saved is not None
    assert book.get(saved.id).text == "our staging server is staging.kestrel.io"
    assert book.get(saved.id).status == "active"
    assert view.composer.toPlainText() == ""
    kinds = [
        view.controller.conversation.entry(r).kind for r in range(view.controller.conversation.rowCount())
    ]
    assert kinds == ["memory"]  # no message of the user, no reply: the model was not asked

    send(qtbot, desktop, "/remember")
    assert "Write what to remember after it" in view.inline_error.text()
