"""Compaction in the app: the marker it leaves (editable, kept on reopening, opened where it is),
a junk summary replaced, undo, the gauge's one measure before and after, and automatic
compaction shown live."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from desktop.views.message_widgets import MessageWidget
from tests.support.context_window import (
    WORDS,
    ask,
    controller_of,
    gauge_estimate,
    last_total,
    override_context,
    summary_widgets,
    tools_ready,
)
from tests.support.desktop_driver import (
    WAIT_MS,
    screenshot,
    scripted,
    send,
    settle,
    start,
)


def test_compact_shows_an_editable_marker_that_survives_reopening(qtbot: QtBot, agent_dir: Path) -> None:
    first = DesktopApp()
    first.start(agent_dir)
    try:
        qtbot.waitUntil(lambda: first.window.current_controller() is not None, timeout=WAIT_MS)
        override_context(qtbot, first, keep_recent_turns=1, auto_compact=False)
        ask(qtbot, first, "We use tabs in this project.", "Noted: tabs.")
        ask(qtbot, first, "What is the launch day?", "Friday.")
        scripted(first).enqueue_reply("The user uses tabs; the assistant noted it.")
        send(qtbot, first, "/compact")
        qtbot.waitUntil(lambda: bool(summary_widgets(first)), timeout=WAIT_MS)
        view = first.window.current_view()
        assert view is not None and view.composer.toPlainText() == ""
        qtbot.waitUntil(lambda: not view.controller.compacting, timeout=WAIT_MS)
        marker = summary_widgets(first)[0]
        assert "Conversation so far — summarizes 2 earlier messages" in marker.toggle.text()
        widgets = view.conversation.widgets()
        assert widgets.index(marker) == 2
        assert [w.dimmed for w in widgets] == [True, True, False, False, False]

        # Just made: shown open, with Undo, so the user sees what now stands for the turns.
        assert not marker.body.isHidden() and "uses tabs" in marker.body.markdown()
        assert not marker.undo_button.isHidden()
        qtbot.mouseClick(marker.edit_button, Qt.MouseButton.LeftButton)
        assert marker.editing
        screenshot(first.window, "compaction_marker")
        marker.editor.setPlainText("The user prefers TABS, never spaces.")
        qtbot.mouseClick(marker.save_button, Qt.MouseButton.LeftButton)
        session = view.controller.session
        qtbot.waitUntil(
            lambda: any(m.role == "summary" and "TABS" in m.content for m in session.history()),
            timeout=WAIT_MS,
        )
        qtbot.waitUntil(lambda: "TABS" in marker.body.markdown(), timeout=WAIT_MS)
        assert not marker.body.isHidden() and marker.editor.isHidden()
        screenshot(first.window, "compaction_marker_saved")

        ask(qtbot, first, "Remind me of our style.", "Tabs.")
        prompt = scripted(first).requests[-1].messages
        assert "The user prefers TABS, never spaces." in prompt[0].content
        assert all("We use tabs in this project." not in m.content for m in prompt)
        chat_id = view.controller.id
    finally:
        first.close()

    second = DesktopApp()
    second.start(agent_dir)
    try:
        qtbot.waitUntil(lambda: second.window.current_controller() is not None, timeout=WAIT_MS)
        controller = controller_of(second)
        assert controller.id == chat_id
        qtbot.waitUntil(lambda: bool(summary_widgets(second)), timeout=WAIT_MS)
        marker = summary_widgets(second)[0]
        assert marker.entry is not None and "TABS" in marker.entry.text
        assert "summarizes 2 earlier messages" in marker.toggle.text()
        widgets = second.window.current_view().conversation.widgets()  # type: ignore[union-attr]
        assert [w.dimmed for w in widgets][:3] == [True, True, False]
        assert all(isinstance(w, MessageWidget) for w in widgets if w is not marker)
    finally:
        second.close()


def test_one_click_opens_a_closed_compaction_marker_where_it_is(qtbot: QtBot, agent_dir: Path) -> None:
    first = start(qtbot, agent_dir)
    try:
        override_context(qtbot, first, keep_recent_turns=2, auto_compact=False)
        for number in range(4):
            ask(qtbot, first, f"Question {number}?", f"Answer {number}.\n\nA second paragraph.\n\nA third.")
        scripted(first).enqueue_reply(
            "The user asked four questions.\n\n- one\n- two\n- three\n\nEach was answered in three paragraphs."
        )
        send(qtbot, first, "/compact")
        qtbot.waitUntil(lambda: bool(summary_widgets(first)), timeout=WAIT_MS)
        qtbot.waitUntil(lambda: not controller_of(first).compacting, timeout=WAIT_MS)
    finally:
        first.close()

    second = start(qtbot, agent_dir)  # the chat reopens with its marker closed, scrolled to the end
    try:
        second.window.resize(1024, 700)
        qtbot.waitUntil(lambda: bool(summary_widgets(second)), timeout=WAIT_MS)
        settle()
        marker = summary_widgets(second)[0]
        conversation = second.window.current_view().conversation  # type: ignore[union-attr]
        assert marker.body.isHidden()
        top = marker.mapTo(conversation.viewport(), QPoint(0, 0)).y()
        assert 0 <= top < conversation.viewport().height() // 2  # in sight, near the top

        qtbot.mouseClick(marker.toggle, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: marker.body.isVisible() and marker.body.height() > 60, timeout=WAIT_MS)
        settle()
        assert marker.mapTo(conversation.viewport(), QPoint(0, 0)).y() == top  # open, where it was clicked
        screenshot(second.window, "compaction_marker_opened")
    finally:
        second.close()


def test_a_junk_summary_is_replaced_and_undo_brings_the_turns_back(
    qtbot: QtBot, theme: str, desktop: DesktopApp
) -> None:
    override_context(qtbot, desktop, keep_recent_turns=1, auto_compact=False)
    ask(qtbot, desktop, "Our release is on 2026-12-04 and Dana owns it.", "Noted: Dana, 2026-12-04.")
    ask(qtbot, desktop, "What is the launch day?", "Friday.")
    scripted(desktop).enqueue_reply("```\n```")  # what the bundled model once wrote
    send(qtbot, desktop, "/compact")
    qtbot.waitUntil(lambda: bool(summary_widgets(desktop)), timeout=WAIT_MS)
    marker = summary_widgets(desktop)[0]
    assert marker.entry is not None and marker.entry.text.startswith(
        "Conversation so far (taken from the messages"
    )
    assert "Dana owns it" in marker.body.markdown() and not marker.body.isHidden()
    screenshot(desktop.window, f"compaction_fallback_{theme}")
    view = desktop.window.current_view()
    assert view is not None
    session = view.controller.session
    qtbot.mouseClick(marker.undo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not summary_widgets(desktop), timeout=WAIT_MS)
    assert all(m.role != "summary" for m in session.history())
    assert not any(w.dimmed for w in view.conversation.widgets())
    texts = [w.entry.text for w in view.conversation.widgets() if w.entry is not None]
    assert any(t.startswith("Compaction undone") for t in texts)
    ask(qtbot, desktop, "And the owner?", "Dana.")
    assert any("Dana owns it" in m.content for m in scripted(desktop).requests[-1].messages)


def test_the_gauge_moves_at_once_after_compaction_and_its_undo(qtbot: QtBot, desktop: DesktopApp) -> None:
    override_context(qtbot, desktop, keep_recent_turns=1, auto_compact=False)
    for turn in range(3):
        ask(qtbot, desktop, f"Tell me about part {turn}. {WORDS}", f"Part {turn}: {WORDS} {WORDS}")
    gauge = desktop.window.context_panel.gauge
    shown = gauge_estimate(qtbot, desktop)
    assert gauge.caption.text().startswith(f"About {shown.total_tokens:,} of")
    controller = controller_of(desktop)

    scripted(desktop).enqueue_reply("Parts 0 and 1 were described.")
    send(qtbot, desktop, "/compact")
    # No reply has been made, yet the gauge already shows the smaller history, as an estimate,
    # and compares it with the very number it showed before compacting.
    qtbot.waitUntil(lambda: controller.estimate_before_compaction is not None, timeout=WAIT_MS)
    estimate, before = controller.next_request_estimate, controller.estimate_before_compaction
    assert estimate is not None and before is not None and not estimate.exact
    assert before.total_tokens == shown.total_tokens
    assert estimate.total_tokens < before.total_tokens - 2 * 30
    caption = gauge.caption.text()
    assert caption.startswith(f"About {estimate.total_tokens:,} of")
    assert f"{shown.total_tokens:,} ({shown.used_share:.0%}) before compacting" in caption
    screenshot(desktop.window, "gauge_after_compaction")

    marker = summary_widgets(desktop)[0]
    qtbot.mouseClick(marker.undo_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: (
            (e := controller.next_request_estimate) is not None
            and e.total_tokens > estimate.total_tokens
            and controller.estimate_before_compaction is None
        ),
        timeout=WAIT_MS,
    )
    # The next reply's request measures it again; no compaction is compared any more.
    ask(qtbot, desktop, "And now?", "Now.")
    after_reply = gauge_estimate(qtbot, desktop)
    assert after_reply.total_tokens > last_total(desktop) - 10  # the reply joined the history
    assert "before compacting" not in gauge.caption.text()
    assert gauge.caption.text().startswith(f"About {after_reply.total_tokens:,} of")


def test_compact_with_too_little_history_says_so(qtbot: QtBot, desktop: DesktopApp) -> None:
    ask(qtbot, desktop, "hello", "hi")
    desktop.window.compact_chat()
    controller = controller_of(desktop)
    qtbot.waitUntil(lambda: controller.conversation.entries()[-1].kind == "notice", timeout=WAIT_MS)
    assert "Nothing to compact yet" in controller.conversation.entries()[-1].text


def test_automatic_compaction_shows_its_marker_live(qtbot: QtBot, desktop: DesktopApp) -> None:
    tools_ready(qtbot, desktop)
    # A room of 500 tokens: compaction starts once the history passes 100.
    override_context(qtbot, desktop, window=512, reply_reserve=12, keep_recent_turns=1, compact_at=0.2)
    ask(qtbot, desktop, WORDS, WORDS)
    ask(qtbot, desktop, WORDS, WORDS)
    scripted(desktop).enqueue_reply("Counting words so far.")
    ask(qtbot, desktop, "eleven", "twelve")
    markers = summary_widgets(desktop)
    assert len(markers) == 1 and "(compacted automatically)" in markers[0].toggle.text()
    kinds = [w.entry.kind for w in desktop.window.current_view().conversation.widgets() if w.entry]  # type: ignore[union-attr]
    assert kinds == ["user", "assistant", "summary", "user", "assistant", "user", "assistant"]
    assert controller_of(desktop).conversation.entries()[-1].text == "twelve"
    scripted(desktop).assert_all_used()
