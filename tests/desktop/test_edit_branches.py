"""Edit keeps the edited message in place with a version switcher (◀ 1/2 ▶), and What-if's
Resend answers the question again without repeating it. The transcript model alone first, then
the window driven as a user would."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from agent_core.chat.branches import Versions
from agent_core.chat.events import MessagesReplaced, UserMessageSaved
from agent_core.store.chats import StoredMessage
from desktop.app import DesktopApp
from desktop.controllers.chat_controller import ChatController
from desktop.models.conversation import ConversationModel
from desktop.views.message_widgets import MessageWidget
from tests.support.desktop_driver import WAIT_MS, idle, scripted, send


def message(message_id: int, role: str, text: str, parent: int, *, aside: int = 0) -> StoredMessage:
    return StoredMessage(
        message_id,
        "chat-1",
        role,
        text,
        "complete",
        1.0,
        replaced=aside > 0,
        parent_id=parent,
        aside=aside,  # type: ignore[arg-type]
    )


def test_the_model_shows_the_branch_shown_with_the_versions_on_its_question_without_a_view() -> None:
    model = ConversationModel()
    model.load(
        [
            message(1, "user", "Capital of France?", 0),
            message(2, "assistant", "Paris.", 1),
            message(3, "user", "And its population?", 2, aside=1),
            message(4, "assistant", "About 2.1 million.", 3, aside=1),
            message(5, "user", "And its metro population?", 2),
            message(6, "assistant", "About 11 million.", 5),
        ]
    )
    assert [e.text for e in model.entries()] == [
        "Capital of France?",
        "Paris.",
        "And its metro population?",
        "About 11 million.",
    ]
    assert model.entry(2).versions == Versions((3, 5), 5) and model.entry(0).versions is None

    # Live: an edit takes the edited message and its replies out; its new version takes the place.
    model.apply(MessagesReplaced(5, versions=(3, 5)))
    assert [e.text for e in model.entries()] == ["Capital of France?", "Paris."]
    model.apply(UserMessageSaved(message(7, "user", "And its area?", 2)))
    assert model.entry(2).text == "And its area?" and model.entry(2).versions == Versions((3, 5, 7), 7)


def controller_of(app: DesktopApp) -> ChatController:
    controller = app.window.current_controller()
    assert controller is not None
    return controller


def messages_shown(app: DesktopApp) -> list[MessageWidget]:
    view = app.window.current_view()
    assert view is not None
    return [w for w in view.conversation.widgets() if isinstance(w, MessageWidget)]


def texts(app: DesktopApp) -> list[str]:
    return [w.entry.text for w in messages_shown(app) if w.entry is not None]


def test_edit_keeps_the_message_in_place_and_the_switcher_flips_between_its_versions(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    scripted(desktop).enqueue_reply("Paris.")
    send(qtbot, desktop, "Capital of France?")
    qtbot.waitUntil(lambda: idle(desktop) and texts(desktop)[-1:] == ["Paris."], timeout=WAIT_MS)
    scripted(desktop).enqueue_reply("About 2.1 million.")
    send(qtbot, desktop, "And its population?")
    qtbot.waitUntil(lambda: idle(desktop) and texts(desktop)[-1:] == ["About 2.1 million."], timeout=WAIT_MS)

    question = messages_shown(desktop)[2]
    assert not question.edit_button.isHidden() and question.version_label.isHidden()
    qtbot.mouseClick(question.edit_button, Qt.MouseButton.LeftButton)
    view = desktop.window.current_view()
    assert view is not None and view.editing is not None
    view.composer.setPlainText("And its metro population?")
    scripted(desktop).enqueue_reply("About 11 million.")
    qtbot.keyClick(view.composer, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: idle(desktop) and texts(desktop)[-1:] == ["About 11 million."], timeout=WAIT_MS)

    # In place: the new version where the old one was, no dimmed copy above it, and ◀ 2/2.
    assert texts(desktop) == [
        "Capital of France?",
        "Paris.",
        "And its metro population?",
        "About 11 million.",
    ]
    edited = messages_shown(desktop)[2]
    assert edited.version_label.text() == "2/2" and not edited.version_label.isHidden()
    assert edited.previous_version.isEnabled() and not edited.next_version.isEnabled()

    qtbot.mouseClick(edited.previous_version, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: texts(desktop)[2:] == ["And its population?", "About 2.1 million."], timeout=WAIT_MS
    )
    first = messages_shown(desktop)[2]
    assert first.version_label.text() == "1/2" and not first.previous_version.isEnabled()
    # The chat goes on from the version shown.
    scripted(desktop).enqueue_reply("Yes, Paris.")
    send(qtbot, desktop, "Is that the city proper?")
    qtbot.waitUntil(lambda: idle(desktop) and texts(desktop)[-1:] == ["Yes, Paris."], timeout=WAIT_MS)
    sent = [str(m.content) for m in scripted(desktop).requests[-1].messages]
    assert any("About 2.1 million." in s for s in sent) and not any("11 million" in s for s in sent)

    qtbot.mouseClick(messages_shown(desktop)[2].next_version, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: texts(desktop)[2:] == ["And its metro population?", "About 11 million."], timeout=WAIT_MS
    )
    assert controller_of(desktop).session.history()[-1].content == "Yes, Paris."  # kept on its branch
