"""End to end through the real widgets: send, stream, stop, approvals, View Context, reopen."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp, create_app
from desktop.theme import colors
from desktop.views.approval_widget import ApprovalWidget
from desktop.views.message_widgets import MessageWidget
from desktop.views.tool_call_widget import ToolCallWidget
from tests.support.desktop_driver import WAIT_MS, idle, open_context, screenshot, scripted, send


def test_a_sent_message_streams_into_a_markdown_reply(qtbot: QtBot, desktop: DesktopApp) -> None:
    reply = "Here is **an answer**.\n\n```python\ndef add(a, b):\n    return a + b\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    scripted(desktop).enqueue_reply(reply)
    send(qtbot, desktop, "How do I add numbers in Python?")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)

    view = desktop.window.current_view()
    assert view is not None
    assert view.composer.toPlainText() == ""
    widgets = view.conversation.widgets()
    assert [w.entry.kind for w in widgets if w.entry] == ["user", "assistant"]
    answer = widgets[1]
    assert isinstance(answer, MessageWidget)
    assert answer.entry is not None and answer.entry.text == reply
    assert answer.body.code_blocks() == ["def add(a, b):\n    return a + b"]
    assert not answer.context_button.isHidden()
    assert desktop.window.tabs.tabText(desktop.window.tabs.currentIndex()).startswith("How do I add")
    screenshot(desktop.window, "main_window")


def test_stop_keeps_what_was_streamed_and_marks_the_reply_stopped(qtbot: QtBot, desktop: DesktopApp) -> None:
    gate = asyncio.Event()
    scripted(desktop).enqueue_reply(chunks=["Partial ", "answer", gate, " never shown"])
    send(qtbot, desktop, "Tell me a long story")
    view = desktop.window.current_view()
    assert view is not None
    qtbot.waitUntil(lambda: view.conversation.model.rowCount() == 2, timeout=WAIT_MS)
    answer = view.conversation.widget_at(1)
    qtbot.waitUntil(
        lambda: answer.entry is not None and answer.entry.text == "Partial answer", timeout=WAIT_MS
    )
    assert not view.stop_button.isHidden() and view.send_button.isHidden()

    qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not view.controller.busy, timeout=WAIT_MS)

    assert answer.entry is not None and answer.entry.status == "cancelled"
    assert answer.entry.text == "Partial answer"
    assert not view.send_button.isHidden()
    saved = view.controller.session.history()[-1]
    assert (saved.status, saved.content) == ("cancelled", "Partial answer")


def run_tool_call(qtbot: QtBot, app: DesktopApp, button: str) -> ToolCallWidget:
    provider = scripted(app)
    provider.enqueue_tool_call("workspace__read_file", {"path": "notes.md"})
    provider.enqueue_reply("Done.")
    qtbot.waitUntil(
        lambda: len(app.host.tools.tools()) > 0, timeout=WAIT_MS
    )  # servers start in the background
    send(qtbot, app, "What does notes.md say?")
    view = app.window.current_view()
    assert view is not None
    qtbot.waitUntil(
        lambda: any(isinstance(w, ApprovalWidget) for w in view.conversation.widgets()), timeout=WAIT_MS
    )
    approval = next(w for w in view.conversation.widgets() if isinstance(w, ApprovalWidget))
    assert "workspace.read_file" in approval.question.text()
    assert "notes.md" in approval.arguments.text()
    screenshot(app.window, f"approval_{button}")
    app.window.activateWindow()
    getattr(approval, button).setFocus()
    qtbot.mouseClick(getattr(approval, button), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: idle(app), timeout=WAIT_MS)
    assert approval.allow_once.isHidden()
    assert view.composer.hasFocus()  # typing can go on without reaching for the mouse
    tool = next(w for w in view.conversation.widgets() if isinstance(w, ToolCallWidget))
    provider.assert_all_used()
    return tool


def test_an_allowed_tool_call_runs_and_shows_its_result_inline(qtbot: QtBot, desktop: DesktopApp) -> None:
    tool = run_tool_call(qtbot, desktop, "allow_once")
    assert tool.entry is not None and tool.entry.status == "done"
    assert "Friday" in tool.result.toPlainText()
    assert "workspace.read_file" in tool.toggle.text() and " s" in tool.toggle.text()
    assert tool.details.isHidden()
    tool.toggle.click()
    assert not tool.details.isHidden()
    screenshot(desktop.window, "tool_call_expanded")


def test_a_denied_tool_call_is_not_run_and_shows_as_denied_by_you_not_as_failed(
    qtbot: QtBot, theme: str, desktop: DesktopApp
) -> None:
    tool = run_tool_call(qtbot, desktop, "deny")
    assert tool.entry is not None and tool.entry.status == "denied"
    assert "denied by you" in tool.toggle.text() and "failed" not in tool.toggle.text()
    palette = colors()
    assert palette.warning in tool.toggle.styleSheet() and palette.error not in tool.toggle.styleSheet()
    tool.toggle.click()
    assert tool._result_label.text() == "Told to the model"
    assert tool.result.toPlainText() == "The user denied this tool call."
    view = desktop.window.current_view()
    assert view is not None
    last = view.conversation.widgets()[-1]
    assert isinstance(last, MessageWidget) and last.entry is not None and last.entry.text == "Done."
    # The model is still told that the call was denied, and answers knowing it.
    told = [m for m in scripted(desktop).requests[1].messages if m.role == "tool"]
    assert [(m.content, m.is_error) for m in told] == [("The user denied this tool call.", True)]
    screenshot(desktop.window, f"tool_call_denied_{theme}")

    dialog = open_context(qtbot, desktop)
    assert not dialog.tool_calls.isHidden()
    calls = dialog.tool_calls.model
    assert [calls.index(0, column).data() for column in range(3)] == [
        "workspace.read_file",
        "path: notes.md",
        "denied by you",
    ]
    assert calls.index(0, 2).data(Qt.ItemDataRole.ForegroundRole) == QColor(palette.warning)
    screenshot(dialog, f"view_context_denied_call_{theme}")
    dialog.close()


def test_a_provider_error_shows_on_the_reply_and_keeps_the_chat_usable(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    from agent_core.errors import ProviderAuthError

    scripted(desktop).enqueue_error(ProviderAuthError("The API key was refused: check it in Providers."))
    send(qtbot, desktop, "hello")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    view = desktop.window.current_view()
    assert view is not None
    last = view.conversation.widgets()[-1]
    assert last.entry is not None and last.entry.kind in ("assistant", "error")
    assert "check it in Providers" in (last.entry.error or last.entry.text)
    scripted(desktop).enqueue_reply("Now it works.")
    send(qtbot, desktop, "again")
    qtbot.waitUntil(
        lambda: idle(desktop) and view.conversation.widgets()[-1].entry.text == "Now it works.",
        timeout=WAIT_MS,
    )


def test_an_agent_whose_agent_yaml_cannot_be_read_does_not_chat(qtbot: QtBot, agent_dir: Path) -> None:
    (agent_dir / "agent.yaml").write_text("name: Work\nchat:\n  model: openai:gpt-4o\n temperature: 0.2\n")
    create_app()
    app = DesktopApp()
    app.start(agent_dir)
    try:
        qtbot.waitUntil(lambda: app.window.current_controller() is not None, timeout=WAIT_MS)
        send(qtbot, app, "hello")
        view = app.window.current_view()
        assert view is not None
        qtbot.waitUntil(lambda: view.inline_error.isVisible(), timeout=WAIT_MS)
        assert "agent.yaml:4" in view.inline_error.text() and "will not guess" in view.inline_error.text()
        assert view.composer.toPlainText() == "hello"
        assert view.controller.session.history() == []
    finally:
        app.close()


@pytest.mark.parametrize(
    ("key", "modifier", "status"),
    [
        (Qt.Key.Key_Return, Qt.KeyboardModifier.NoModifier, "done"),
        (Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier, "done"),
        (Qt.Key.Key_Escape, Qt.KeyboardModifier.NoModifier, "denied"),
    ],
)
def test_an_approval_is_answered_by_keyboard_and_esc_denies_without_stopping_the_reply(
    qtbot: QtBot, desktop: DesktopApp, key: Qt.Key, modifier: Qt.KeyboardModifier, status: str
) -> None:
    provider = scripted(desktop)
    provider.enqueue_tool_call("workspace__read_file", {"path": "notes.md"})
    provider.enqueue_reply("Done.")
    qtbot.waitUntil(
        lambda: len(desktop.host.tools.tools()) > 0, timeout=WAIT_MS
    )  # servers start in the background
    send(qtbot, desktop, "What does notes.md say?")
    view = desktop.window.current_view()
    assert view is not None
    qtbot.waitUntil(
        lambda: any(isinstance(w, ApprovalWidget) for w in view.conversation.widgets()), timeout=WAIT_MS
    )
    approval = next(w for w in view.conversation.widgets() if isinstance(w, ApprovalWidget))
    desktop.window.activateWindow()
    qtbot.waitUntil(approval.hasFocus, timeout=WAIT_MS)  # the card has the keyboard while it waits
    screenshot(desktop.window, "approval_with_the_keyboard")
    qtbot.keyClick(approval, key, modifier)
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    tool = next(w for w in view.conversation.widgets() if isinstance(w, ToolCallWidget))
    assert tool.entry is not None and tool.entry.status == status
    last = view.conversation.widgets()[-1]
    assert isinstance(last, MessageWidget) and last.entry is not None and last.entry.text == "Done."
    allowed = view.controller.session.allowed_tools
    assert (len(allowed) == 1) == (modifier == Qt.KeyboardModifier.ControlModifier)


def test_regenerate_retry_and_edit_keep_what_they_replace_dimmed(
    qtbot: QtBot, theme: str, desktop: DesktopApp
) -> None:
    from agent_core.errors import ProviderError

    provider = scripted(desktop)
    view = desktop.window.current_view()
    assert view is not None
    provider.enqueue_reply("First answer.")
    send(qtbot, desktop, "What is 2 + 2?")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)

    def replies() -> list[MessageWidget]:
        return [w for w in view.conversation.widgets() if isinstance(w, MessageWidget)]

    first = replies()[-1]
    assert first.regenerate_button.text() == "Regenerate" and not first.regenerate_button.isHidden()
    assert not replies()[0].edit_button.isHidden()  # the user's message can be edited
    provider.enqueue_reply("Second answer.")
    qtbot.mouseClick(first.regenerate_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: idle(desktop) and replies()[-1].entry.text == "Second answer.", timeout=WAIT_MS)  # type: ignore[union-attr]
    kept = replies()[1]
    assert kept.entry is not None and kept.entry.text == "First answer." and kept.entry.replaced
    assert "Replaced" in kept._status.full_text() and kept.regenerate_button.isHidden()

    provider.enqueue_error(ProviderError("the server refused the request; check the model name"))
    provider.enqueue_reply("Third answer.")
    qtbot.mouseClick(replies()[-1].regenerate_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: idle(desktop) and replies()[-1].regenerate_button.text() == "Retry", timeout=WAIT_MS
    )
    qtbot.mouseClick(replies()[-1].regenerate_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: idle(desktop) and replies()[-1].entry.text == "Third answer.", timeout=WAIT_MS)  # type: ignore[union-attr]

    provider.enqueue_reply("Nine.")
    qtbot.mouseClick(replies()[0].edit_button, Qt.MouseButton.LeftButton)
    assert view.composer.toPlainText() == "What is 2 + 2?" and not view.edit_bar.isHidden()
    view.composer.setPlainText("What is 4 + 5?")
    qtbot.keyClick(view.composer, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: idle(desktop) and replies()[-1].entry.text == "Nine.", timeout=WAIT_MS)  # type: ignore[union-attr]
    assert view.edit_bar.isHidden()
    # The new version stands in place of the old one, which is kept behind ◀ 1/2.
    assert [w.entry.text for w in replies() if w.entry is not None] == ["What is 4 + 5?", "Nine."]
    assert replies()[0].version_label.text() == "2/2"
    screenshot(desktop.window, f"regenerate_and_edit_{theme}")
    history = view.controller.session.history()
    assert [m.content for m in history if not m.replaced] == ["What is 4 + 5?", "Nine."]
    assert "First answer." in [m.content for m in history if m.replaced]


def test_an_approval_names_the_folder_a_call_acts_on_and_shows_arguments_as_text(
    qtbot: QtBot, theme: str, desktop: DesktopApp, agent_dir: Path
) -> None:
    provider = scripted(desktop)
    provider.enqueue_tool_calls(
        [
            ("workspace__list_files", {}, "l1"),
            ("workspace__search_files", {"query": "launch day", "pattern": "*.md"}, "s1"),
        ]
    )
    provider.enqueue_reply("Done.")
    qtbot.waitUntil(lambda: len(desktop.host.tools.tools()) > 0, timeout=WAIT_MS)
    send(qtbot, desktop, "Where do my notes mention the launch?")
    view = desktop.window.current_view()
    assert view is not None

    def approvals() -> list[ApprovalWidget]:
        return [w for w in view.conversation.widgets() if isinstance(w, ApprovalWidget)]

    folder = f"in your workspace folder {agent_dir.parent / 'files'}"  # the test agent's root
    qtbot.waitUntil(lambda: len(approvals()) == 1, timeout=WAIT_MS)
    listing = approvals()[0]
    assert f"<b>workspace.list_files</b> {folder}. Allow it?" in listing.question.text()
    assert listing.arguments.isHidden()  # no arguments: the folder says what it will list
    qtbot.mouseClick(listing.allow_once, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: len(approvals()) == 2, timeout=WAIT_MS)
    search = approvals()[1]
    assert folder in search.question.text()
    shown = search.arguments.text()
    assert "query" in shown and "launch day" in shown and '"launch day"' not in shown  # text, not JSON
    assert "pattern" in shown and "*.md" in shown and not search.arguments.isHidden()
    screenshot(desktop.window, f"approval_with_its_folder_{theme}")
    qtbot.mouseClick(search.allow_once, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    provider.assert_all_used()


def test_a_provider_that_keeps_failing_shows_one_error_not_a_line_per_attempt(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    from agent_core.errors import ProviderUnavailableError

    for _ in range(4):  # every attempt the app makes
        scripted(desktop).enqueue_error(
            ProviderUnavailableError("The server had a problem (HTTP 503): try again later.", retry_after=0)
        )
    send(qtbot, desktop, "hello")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    view = desktop.window.current_view()
    assert view is not None
    rows = [w.entry for w in view.conversation.widgets() if w.entry is not None]
    assert [(e.kind, e.status) for e in rows] == [("user", "complete"), ("assistant", "error")]
    assert sum("HTTP 503" in (e.text + (e.error or "")) for e in rows) == 1


def test_a_message_sent_while_the_chat_history_is_read_waits_for_it_and_nothing_is_lost(
    qtbot: QtBot, desktop: DesktopApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    controller = desktop.window.current_controller()
    assert controller is not None
    provider = scripted(desktop)
    provider.enqueue_reply("First answer.")
    send(qtbot, desktop, "first")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    # The history is read in a worker thread while replies stream on the core loop: read it again,
    # slowly, as when a chat opens, and send before it arrives.
    released = threading.Event()
    reading = controller.session.history

    def slow_history() -> object:
        released.wait(WAIT_MS / 1000)
        return reading()

    monkeypatch.setattr(controller.session, "history", slow_history)
    controller.load_history()
    provider.enqueue_reply("Second answer.")
    send(qtbot, desktop, "second")
    assert controller.busy  # shown as under way (Stop) while it waits
    rows = lambda: [(e.kind, e.text) for e in controller.conversation.entries()]  # noqa: E731
    assert ("user", "second") not in rows()
    released.set()
    qtbot.waitUntil(
        lambda: ("assistant", "Second answer.") in rows() and not controller.busy, timeout=WAIT_MS
    )
    assert rows() == [
        ("user", "first"),
        ("assistant", "First answer."),
        ("user", "second"),
        ("assistant", "Second answer."),
    ]
    provider.assert_all_used()


def test_stop_before_a_waiting_message_is_sent_gives_its_text_back(
    qtbot: QtBot, desktop: DesktopApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    controller = desktop.window.current_controller()
    view = desktop.window.current_view()
    assert controller is not None and view is not None
    released = threading.Event()
    reading = controller.session.history

    def slow_history() -> object:
        released.wait(WAIT_MS / 1000)
        return reading()

    monkeypatch.setattr(controller.session, "history", slow_history)
    controller.load_history()
    provider = scripted(desktop)
    send(qtbot, desktop, "never mind")
    assert controller.busy
    with qtbot.waitSignal(controller.send_failed, timeout=WAIT_MS) as failed:
        controller.stop()
    assert failed.args[0] == "never mind" and not controller.busy
    with qtbot.waitSignal(controller.history_loaded, timeout=WAIT_MS):
        released.set()
    assert not controller.busy and provider.requests == []  # nothing was sent
    assert view.composer.toPlainText() == "never mind"
