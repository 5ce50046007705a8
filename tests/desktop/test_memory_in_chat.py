"""Memories in the chat window: proposals inline with Accept / Edit / Reject (shown again when the
chat is reopened), "Remember this" on a message, and View Context's Edit / Pin / Forget / Not for
this chat. The transcript model alone first, then the window driven as a user would."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from agent_core.memory.book import MemoryBook, MemoryDraft, WriteOutcome
from agent_core.memory.records import Memory, Provenance
from agent_core.store.chats import StoredMessage
from desktop.app import DesktopApp
from desktop.models.conversation import ConversationModel
from desktop.views.memory_chip import MemoryChip
from desktop.views.message_widgets import MessageWidget
from tests.support.desktop_driver import WAIT_MS, idle, open_context, screenshot, scripted, send


def memory(memory_id: str, text: str, message_id: int | None, status: str = "proposed") -> Memory:
    return Memory(
        memory_id,
        text,
        "fact",
        "agent",
        "long",
        status,  # type: ignore[arg-type]
        3,
        "/a",
        None,
        Provenance("chat-1", message_id, "user", text),
        1.0,
        1.0,
    )


def message(message_id: int, role: str, text: str) -> StoredMessage:
    return StoredMessage(message_id, "chat-1", role, text, "complete", 1.0)  # type: ignore[arg-type]


def test_memory_rows_sit_under_their_message_and_record_each_answer_without_a_view() -> None:
    model = ConversationModel()
    model.load([message(1, "user", "remember that I use vim"), message(2, "assistant", "Noted.")])
    cat = memory("m-1", "I use vim", 1)
    row = model.add_memory(WriteOutcome("proposed", cat), after_message=1)
    assert row == 1 and [e.kind for e in model.entries()] == ["user", "memory", "assistant"]
    # A second memory from the same message goes after the first; one with no message, at the end.
    assert model.add_memory(WriteOutcome("proposed", memory("m-2", "I like tea", 1)), after_message=1) == 2
    assert model.add_memory(WriteOutcome("added", memory("m-3", "x", None, "active"))) == 4
    assert model.entry(4).status == "remembered"
    assert model.add_memory(WriteOutcome("blocked", None)) is None

    model.set_memory(1, "accepted", memory("m-1", "I use neovim", 1, "active"))
    assert model.entry(1).status == "accepted" and model.entry(1).text == "I use neovim"
    assert model.memory_row("m-2") == 2 and model.memory_row("nope") is None

    # Reopened: open proposals are placed under their messages, once.
    model.load([message(1, "user", "remember that I use vim"), message(2, "assistant", "Noted.")])
    model.add_open_proposals([(cat, "I use emacs")])
    model.add_open_proposals([(cat, "I use emacs")])
    assert [e.kind for e in model.entries()] == ["user", "memory", "assistant"]
    assert model.entry(1).replaces == "I use emacs"


def _ready_book(qtbot: QtBot, desktop: DesktopApp) -> MemoryBook:
    workspace = desktop.host.workspace
    assert workspace is not None
    workspace.selector.start_loading()
    qtbot.waitUntil(workspace.selector.model_ready, timeout=60_000)
    return workspace.memories.book_for(workspace.agent)


def _chips(desktop: DesktopApp) -> list[MemoryChip]:
    view = desktop.window.current_view()
    assert view is not None
    return [w for w in view.conversation.widgets() if isinstance(w, MemoryChip)]


def test_a_proposal_is_answered_inline_and_comes_back_when_the_chat_is_reopened(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    book = _ready_book(qtbot, desktop)
    scripted(desktop).enqueue_reply("I will remember that.")
    send(qtbot, desktop, "remember that my cat is called Miso")
    qtbot.waitUntil(lambda: idle(desktop) and len(_chips(desktop)) == 1, timeout=WAIT_MS)
    [chip] = _chips(desktop)
    proposed = chip.entry.memory  # type: ignore[union-attr]
    assert proposed is not None and book.get(proposed.id).status == "proposed"
    assert chip.accept_button.isVisible() and chip.reject_button.isVisible() and chip.edit_button.isVisible()
    assert "Remember “My cat is called Miso”?" in chip.label.text()
    screenshot(desktop.window, "memory_proposal_chip")

    # Reopening the chat (its history loads again) shows the unanswered proposal again.
    controller = desktop.window.current_controller()
    assert controller is not None
    controller.load_history()
    qtbot.waitUntil(lambda: len(_chips(desktop)) == 1 and _chips(desktop)[0] is not chip, timeout=WAIT_MS)
    [chip] = _chips(desktop)

    qtbot.mouseClick(chip.edit_button, Qt.MouseButton.LeftButton)
    assert chip.editing and not chip.save_button.isHidden() and chip.accept_button.isHidden()
    chip.editor.setPlainText("my cat is called Miso, a grey tabby")
    qtbot.mouseClick(chip.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: book.get(proposed.id).status == "active", timeout=WAIT_MS)
    assert book.get(proposed.id).text == "my cat is called Miso, a grey tabby"
    qtbot.waitUntil(lambda: _chips(desktop)[0].entry.status == "accepted", timeout=WAIT_MS)  # type: ignore[union-attr]
    assert chip.accept_button.isHidden() and "used from your next message" in chip.outcome.text()
    assert not chip.forget_button.isHidden()

    # An accepted memory can still be forgotten from its row.
    qtbot.mouseClick(chip.forget_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: book.get(proposed.id).status == "forgotten", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "Forgotten" in chip.outcome.text(), timeout=WAIT_MS)


def test_a_rejected_proposal_is_never_recalled(qtbot: QtBot, desktop: DesktopApp) -> None:
    book = _ready_book(qtbot, desktop)
    scripted(desktop).enqueue_reply("Sure.")
    send(qtbot, desktop, "remember that I live in Oslo")
    qtbot.waitUntil(lambda: idle(desktop) and len(_chips(desktop)) == 1, timeout=WAIT_MS)
    [chip] = _chips(desktop)
    qtbot.mouseClick(chip.reject_button, Qt.MouseButton.LeftButton)
    memory_id = chip.entry.memory.id  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: book.get(memory_id).status == "rejected", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "Rejected" in chip.outcome.text(), timeout=WAIT_MS)
    assert "<s>" in chip.label.text()


def test_remember_this_saves_the_users_words_from_an_assistant_message(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    book = _ready_book(qtbot, desktop)
    scripted(desktop).enqueue_reply("Your staging server is staging.kestrel.io, port 8443.")
    send(qtbot, desktop, "which staging server do we use?")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    view = desktop.window.current_view()
    assert view is not None
    reply = [w for w in view.conversation.widgets() if isinstance(w, MessageWidget)][-1]
    assert not reply.remember_button.isHidden()
    qtbot.mouseClick(reply.remember_button, Qt.MouseButton.LeftButton)
    dialog = view.last_remember_dialog
    assert dialog is not None and dialog.editor.toPlainText().startswith("Your staging server")
    dialog.editor.setPlainText("our staging server is staging.kestrel.io:8443")
    screenshot(dialog, "remember_this")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(_chips(desktop)) == 1, timeout=WAIT_MS)
    saved = _chips(desktop)[0].entry.memory  # type: ignore[union-attr]
    assert saved is not None
    stored = book.get(saved.id)
    assert stored.status == "active" and stored.text == "our staging server is staging.kestrel.io:8443"
    assert stored.provenance.speaker == "assistant" and stored.provenance.message_id == reply.entry.message_id  # type: ignore[union-attr]
    assert stored.provenance.quote.startswith("Your staging server")


def test_remember_this_warns_about_a_secret_before_saving(qtbot: QtBot, desktop: DesktopApp) -> None:
    scripted(desktop).enqueue_reply("ok")
    send(qtbot, desktop, "hello")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    view = desktop.window.current_view()
    assert view is not None
    first = next(w for w in view.conversation.widgets() if isinstance(w, MessageWidget))
    qtbot.mouseClick(first.remember_button, Qt.MouseButton.LeftButton)
    dialog = view.last_remember_dialog
    assert dialog is not None and dialog.warning.isHidden()
    dialog.editor.setPlainText("my key is sk-proj-abcdefghijklmnopqrstuvwx")
    assert not dialog.warning.isHidden() and "an API key" in dialog.warning.text()
    dialog.editor.setPlainText("")
    assert not dialog.save_button.isEnabled()


def test_view_context_edits_pins_forgets_and_leaves_a_memory_out_of_the_chat(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    book = _ready_book(qtbot, desktop)
    cat = book.add(MemoryDraft("my cat is called Miso")).memory
    assert cat is not None
    scripted(desktop).enqueue_reply("Miso.")
    send(qtbot, desktop, "what is my cat called?")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    dialog = open_context(qtbot, desktop)
    column = dialog.columns["memory"]
    actions = column.memory_actions
    assert actions is not None and not actions.edit_button.isEnabled()  # nothing selected yet
    column.items_view.setCurrentIndex(column.items_view.model().index(0, 0))
    assert actions.selected() is not None and actions.edit_button.isEnabled()

    qtbot.mouseClick(actions.edit_button, Qt.MouseButton.LeftButton)
    actions.editor.setText("my cat is called Miso; she is 4")
    qtbot.mouseClick(actions.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: book.get(cat.id).text == "my cat is called Miso; she is 4", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: column.items_model.rows()[0].title.endswith("she is 4"), timeout=WAIT_MS)

    qtbot.mouseClick(actions.pin_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: book.get(cat.id).tier == "pinned", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: actions.pin_button.text() == "Unpin", timeout=WAIT_MS)
    screenshot(dialog, "view_context_memory_actions")

    qtbot.mouseClick(actions.chat_button, Qt.MouseButton.LeftButton)
    controller = desktop.window.current_controller()
    assert controller is not None
    memory_ref = column.items_model.rows()[0].ref
    qtbot.waitUntil(lambda: memory_ref in controller.session._record.excluded_items, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: actions.chat_button.text() == "Use in this chat again", timeout=WAIT_MS)
    dialog.close()

    # Even pinned, a memory left out of this chat is not recalled here.
    scripted(desktop).enqueue_reply("No idea.")
    send(qtbot, desktop, "what is my cat called again?")
    qtbot.waitUntil(lambda: idle(desktop) and len(scripted(desktop).requests) == 2, timeout=WAIT_MS)
    last = controller.last_reply_entry()
    assert last is not None and last.context is not None and not last.context.of_type("memory")

    dialog = open_context(qtbot, desktop)
    first_reply = controller.conversation.entries()[1]
    dialog.close()
    desktop.window.dialogs.show_context(first_reply.context, first_reply.message_id, controller)  # type: ignore[arg-type]
    dialog = desktop.window.dialogs.last_context_dialog
    assert dialog is not None
    column = dialog.columns["memory"]
    actions = column.memory_actions
    assert actions is not None
    column.items_view.setCurrentIndex(column.items_view.model().index(0, 0))
    qtbot.mouseClick(actions.forget_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: book.get(cat.id).status == "forgotten", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: column.items_model.rows()[0].removed, timeout=WAIT_MS)
    assert not actions.forget_button.isEnabled()
    dialog.close()
