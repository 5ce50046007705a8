"""Context-window management in the app: the gauge, token costs in View Context, what-if,
compaction markers and pinning, driven through the real widgets with the scripted provider."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from agent_core.context.items import ContextManifest, ItemRef
from desktop.app import DesktopApp
from desktop.controllers.chat_controller import ChatController
from desktop.dialogs.what_if import WhatIfDialog
from desktop.models.context_items import Column, Role
from desktop.views.message_widgets import MessageWidget
from desktop.views.summary_widget import SummaryWidget
from desktop.views.token_bar import ContextGauge
from tests.support.desktop_driver import (
    WAIT_MS,
    ask_with_selection,
    idle,
    open_context,
    screenshot,
    scripted,
    send,
    settle,
    start,
)

WORDS = " ".join(f"w{i}" for i in range(30))  # 30 tokens for the scripted (word) counter


def controller_of(app: DesktopApp) -> ChatController:
    controller = app.window.current_controller()
    assert controller is not None
    return controller


def override_context(qtbot: QtBot, app: DesktopApp, **values: Any) -> None:
    controller = controller_of(app)
    controller.override_settings(context=values)
    qtbot.waitUntil(
        lambda: all(getattr(controller.session.context_settings, k) == v for k, v in values.items()),
        timeout=WAIT_MS,
    )


def tools_ready(qtbot: QtBot, app: DesktopApp) -> None:
    """Tool schemas count towards the window: wait for the server so every request has them."""
    qtbot.waitUntil(lambda: len(app.host.tools.tools()) == 4, timeout=WAIT_MS)


def ask(qtbot: QtBot, app: DesktopApp, text: str, reply: str) -> None:
    controller = controller_of(app)
    before = controller.conversation.rowCount()
    scripted(app).enqueue_reply(reply)
    send(qtbot, app, text)
    qtbot.waitUntil(lambda: idle(app) and controller.conversation.rowCount() >= before + 2, timeout=WAIT_MS)


def level(gauge: ContextGauge) -> str:
    return gauge.level


def gauge_estimate(qtbot: QtBot, app: DesktopApp) -> ContextManifest:
    """The gauge's figure once a reply is done: what the next request would send (estimated
    after each reply from its request's figures and the history now)."""
    controller = controller_of(app)
    qtbot.waitUntil(lambda: controller.next_request_estimate is not None, timeout=WAIT_MS)
    estimate = controller.next_request_estimate
    assert estimate is not None and not estimate.exact
    return estimate


def last_total(app: DesktopApp) -> int:
    context = controller_of(app).session_context_of_last_reply()
    assert context is not None and context.manifest is not None
    return context.manifest.total_tokens


def test_the_gauge_fills_green_then_amber_then_red_with_a_breakdown_on_hover(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    gauge = desktop.window.context_panel.gauge
    assert level(gauge) == "empty" and "first reply" in gauge.caption.text()
    tools_ready(qtbot, desktop)
    window = 100_000
    override_context(qtbot, desktop, window=window, reply_reserve=100, auto_compact=False)

    ask(qtbot, desktop, WORDS, WORDS)
    estimate = gauge_estimate(qtbot, desktop)
    assert level(gauge) == "ok"
    first = last_total(desktop)
    # The gauge shows the next request before it is made: the first one's parts with its message
    # and the reply now in the history (30 words and 4 framing tokens each), all but the text of
    # the message still to be typed (30 words here).
    expected = first + 2 * (30 + 4)
    assert estimate.total_tokens == expected - 30
    assert gauge.caption.text().startswith(f"About {estimate.total_tokens:,} of {window - 100:,} tokens")
    override_context(qtbot, desktop, reply_reserve=window - round(expected / 0.72))
    ask(qtbot, desktop, WORDS, WORDS)
    assert last_total(desktop) == expected  # the estimate plus the message typed
    estimate = gauge_estimate(qtbot, desktop)
    assert level(gauge) == "warn"
    tip = gauge.toolTip()
    assert f"{estimate.total_tokens:,} of " in tip and "reserved for the reply" in tip
    for kind in ("System prompt", "Rules", "Tools", "History", "Framing"):
        assert f"{kind}: " in tip
    assert f"{estimate.used_share:.0%}" in gauge.share_label.text()

    # A room smaller than the whole history: older turns are dropped to fit, and the gauge is red.
    override_context(qtbot, desktop, reply_reserve=window - (expected + 40))
    ask(qtbot, desktop, WORDS, WORDS)
    gauge_estimate(qtbot, desktop)
    assert level(gauge) == "over"
    context = controller_of(desktop).session_context_of_last_reply()
    assert context is not None and context.manifest is not None
    assert [t.kind for t in context.manifest.trimmed] == ["history_dropped"]
    screenshot(desktop.window, "context_gauge")

    # View Context of that reply: costs per row, the summary bar, and what was trimmed.
    dialog = open_context(qtbot, desktop)
    manifest = context.manifest
    assert dialog.tokens.bar is not None
    labels = [group.label for group, _ in dialog.tokens.bar.segments]
    assert labels[:3] == ["System prompt", "Rules", "Tools"] and "History" in labels
    totals = dialog.tokens.totals.text()
    assert f"{manifest.total_tokens:,} of {manifest.budget:,} tokens" in totals
    assert f"window {window:,} from chat" in totals and "counts exact" in totals
    assert "Trimmed to fit" in dialog.tokens.trimmed.text()
    rule = next(p for p in manifest.parts if p.kind == "rule" and p.name == "clear-answers")
    rules = dialog.columns["rule"].items_view.proxy
    assert rules.index(0, Column.NAME).data() == "clear-answers"
    assert rules.index(0, 0).data(Role.TOKENS) == rule.tokens
    assert rules.index(0, Column.TOKENS).data() == f"{rule.tokens:,}"
    tool = next(p for p in manifest.parts if p.kind == "tool" and p.name == "workspace__read_file")
    tools = dialog.columns["tool"].items_view.proxy
    read_file = next(
        tools.index(r, 0)
        for r in range(tools.rowCount())
        if tools.index(r, Column.NAME).data() == "read_file"
    )
    assert read_file.data(Role.TOKENS) == tool.tokens > 0
    assert f"· {rule.tokens:,} tokens" in dialog.columns["rule"].title.text()
    dialog.parts_toggle.click()
    assert dialog.parts_model.rowCount() > 5 and not dialog.parts_table.isHidden()
    screenshot(dialog, "view_context_costs")
    dialog.close()


def test_a_reply_without_a_manifest_shows_without_costs(qtbot: QtBot) -> None:
    from dataclasses import replace

    from agent_core.context.items import RequestContext, RequestItem, SelectionRun
    from desktop.dialogs.view_context import ViewContextDialog

    old = RequestContext(
        (RequestItem(ItemRef("rule", "style"), "always"),), "scripted:x", SelectionRun(20, 5, 0.7)
    )
    dialog = ViewContextDialog(replace(old), None)
    qtbot.addWidget(dialog)
    assert dialog.tokens.bar is None and "not recorded" in dialog.tokens.totals.text()
    assert dialog.columns["rule"].items_view.proxy.index(0, 0).data(Role.TOKENS) is None
    assert dialog.what_if_button.isHidden()


def open_what_if(qtbot: QtBot, app: DesktopApp) -> WhatIfDialog:
    dialog = open_context(qtbot, app)
    assert not dialog.what_if_button.isHidden()
    qtbot.mouseClick(dialog.what_if_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: app.window.dialogs.last_what_if_dialog is not None, timeout=WAIT_MS)
    what_if = app.window.dialogs.last_what_if_dialog
    assert isinstance(what_if, WhatIfDialog)
    return what_if


def compare(qtbot: QtBot, dialog: WhatIfDialog) -> None:
    with qtbot.waitSignal(dialog.compared, timeout=60_000):
        qtbot.mouseClick(dialog.compare_button, Qt.MouseButton.LeftButton)


def test_what_if_compares_side_by_side_and_resends_with_the_new_settings(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    ask_with_selection(qtbot, desktop)
    question = "@ref:release-notes How should I name my Python functions and write code?"
    dialog = open_what_if(qtbot, desktop)
    assert dialog.question == question
    used = {row.ref for row in dialog.items.rows() if row.used}
    assert ItemRef("reference", "release-notes") in used

    # Leave the manual reference out, try the anchor strategy.
    dialog.items.set_checked(ItemRef("reference", "release-notes"), False)
    dialog.strategy.setCurrentIndex(dialog.strategy.findData("anchor"))
    compare(qtbot, dialog)
    result = dialog.what_if_result
    assert result is not None and result.manifest is not None
    assert result.selection.strategy == "anchor"
    changes = {row.ref.name: row.change for row in dialog.comparison.rows()}
    assert changes["release-notes"] == "removed" and changes["clear-answers"] == "kept"
    removed = next(r for r in dialog.comparison.rows() if r.ref.name == "release-notes")
    assert removed.before_tokens is not None and removed.after_tokens is None
    original = dialog.original.manifest
    assert original is not None
    assert f"{result.manifest.total_tokens - original.total_tokens:+,} tokens" in dialog.delta.text()
    # The anchor fills topN, so nothing is left for the model's catalogue (context.read_item) either.
    gone = sorted(r.ref.name for r in dialog.comparison.rows() if r.change == "removed")
    assert set(gone) <= {"release-notes", "read_item"} and "release-notes" in gone
    assert f"{len(gone)} removed" in dialog.delta.text()
    assert dialog.what_if_side.summary is not None
    # Resending makes these the chat's own: the button and the line above it say so first.
    assert dialog.resend_button.text() == "Resend and change this chat (2 changes)"
    effects = dialog.resend_effects.text()
    assert (
        "Strategy hybrid → anchor" in effects and "removes reference release-notes from this chat" in effects
    )
    screenshot(dialog, "what_if")

    # Include a near-miss too, if the selector left one out: it shows as added.
    misses = [row for row in dialog.items.rows() if not row.used]
    if misses:
        dialog.items.set_checked(misses[0].ref, True)
        compare(qtbot, dialog)
        assert {r.ref: r.change for r in dialog.comparison.rows()}[misses[0].ref] == "added"
        assert f"adds {misses[0].name} to this chat as Manual" in dialog.resend_effects.text()
        assert dialog.resend_button.text() == "Resend and change this chat (3 changes)"
        screenshot(dialog, "what_if_resend_adds")
        dialog.items.set_checked(misses[0].ref, False)
        compare(qtbot, dialog)

    scripted(desktop).enqueue_reply("Again, with anchor.")
    controller = controller_of(desktop)
    qtbot.mouseClick(dialog.resend_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: idle(desktop) and controller.conversation.entries()[-1].text == "Again, with anchor.",
        timeout=WAIT_MS,
    )
    assert controller.session.selection_settings.strategy == "anchor"
    # The question is answered again in place, not repeated: without the left-out @mention it is
    # the question's second version (◀ 2/2 ▶), the first kept with its answer.
    [question] = [e for e in controller.conversation.entries() if e.kind == "user"]
    assert question.text == "How should I name my Python functions and write code?"
    assert question.versions is not None and (question.versions.position, question.versions.count) == (2, 2)
    assert ItemRef("reference", "release-notes") not in {i.ref for i in controller.session.items}
    assert desktop.window.settings_panel.strategy.currentData() == "anchor"


def summary_widgets(app: DesktopApp) -> list[SummaryWidget]:
    view = app.window.current_view()
    assert view is not None
    return [w for w in view.conversation.widgets() if isinstance(w, SummaryWidget)]


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


def test_pinning_an_item_in_the_context_panel_shows_a_badge_and_reaches_the_chat(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    section = desktop.window.context_panel.sections["rule"]
    index = section.proxy.index(0, 0)
    section.view.setCurrentIndex(index)
    assert section.pin_button.isEnabled() and section.pin_button.text() == "Pin"
    qtbot.mouseClick(section.pin_button, Qt.MouseButton.LeftButton)
    controller = controller_of(desktop)
    ref = ItemRef("rule", "clear-answers")
    qtbot.waitUntil(lambda: any(i.ref == ref and i.pinned for i in controller.session.items), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: section.proxy.index(0, 0).data(Role.PINNED) is True, timeout=WAIT_MS)
    section.view.setCurrentIndex(section.proxy.index(0, 0))
    assert section.pin_button.text() == "Unpin"
    screenshot(desktop.window.side_tabs, "context_panel_pinned")
    qtbot.mouseClick(section.pin_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not any(i.pinned for i in controller.session.items), timeout=WAIT_MS)


def test_context_settings_apply_to_the_chat_and_can_become_the_agent_default(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path
) -> None:
    settings = desktop.window.settings_panel
    assert settings.window_tokens.text() == "From the model"
    settings.window_tokens.setValue(4096)
    settings.keep_recent_turns.setValue(2)
    settings.auto_compact.setChecked(False)
    settings.apply()
    controller = controller_of(desktop)
    qtbot.waitUntil(lambda: controller.session.context_settings.window == 4096, timeout=WAIT_MS)
    limits = controller.session.context_settings
    assert (limits.keep_recent_turns, limits.auto_compact, limits.reply_reserve) == (2, False, None)
    desktop.window.side_tabs.setCurrentWidget(settings)
    screenshot(desktop.window.side_tabs, "chat_settings_context")
    settings.save_default.click()
    qtbot.waitUntil(lambda: "window: 4096" in (agent_dir / "agent.yaml").read_text(), timeout=WAIT_MS)
    assert "keepRecentTurns: 2" in (agent_dir / "agent.yaml").read_text()


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


def test_a_stopped_reply_keeps_its_token_counts_and_the_gauge_its_figure(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    import asyncio

    gauge = desktop.window.context_panel.gauge
    tools_ready(qtbot, desktop)
    ask(qtbot, desktop, WORDS, WORDS)
    first = last_total(desktop)
    controller = controller_of(desktop)
    scripted(desktop).enqueue_reply(chunks=["Once upon ", "a time", asyncio.Event(), " never shown"])
    send(qtbot, desktop, "Tell me a long story")
    qtbot.waitUntil(lambda: controller.conversation.entries()[-1].text == "Once upon a time", timeout=WAIT_MS)
    view = desktop.window.current_view()
    assert view is not None
    qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)

    def stopped_with_counts() -> bool:
        entry = controller.conversation.entries()[-1]
        return entry.status == "cancelled" and entry.context is not None and entry.context.usage.estimated

    qtbot.waitUntil(stopped_with_counts, timeout=WAIT_MS)
    context = controller.conversation.entries()[-1].context
    assert context is not None and context.manifest is not None
    assert context.manifest.total_tokens > first  # the stopped request, with the first turn in its history
    assert context.usage.input_tokens == context.manifest.total_tokens and context.usage.output_tokens == 4
    # The gauge estimates from the stopped request's figures, not "no token counts" (once the
    # stopped reply has been read back from the store).
    qtbot.waitUntil(
        lambda: (
            (e := controller.next_request_estimate) is not None
            and e.budget == context.manifest.budget  # type: ignore[union-attr]
            and e.total_tokens > first
            and gauge.caption.text().startswith(f"About {e.total_tokens:,} of")
        ),
        timeout=WAIT_MS,
    )
    assert gauge.level != "empty"
    screenshot(desktop.window, "stopped_reply_gauge")

    dialog = open_context(qtbot, desktop)
    summary = dialog.summary.text()
    assert f"tokens ~{context.manifest.total_tokens:,} in, ~4 out" in summary and "estimated" in summary
    screenshot(dialog, "view_context_stopped_reply")
    dialog.close()
