"""Context-window management in the app: the gauge, token costs in View Context, what-if, pinning
and the context settings, driven through the real widgets with the scripted provider (compaction
markers: test_compaction_markers.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from agent_core.context.items import ItemRef
from desktop.app import DesktopApp
from desktop.dialogs.what_if import WhatIfDialog
from desktop.models.context_items import Column, Role
from desktop.views.token_bar import ContextGauge
from tests.support.context_window import (
    WORDS,
    ask,
    controller_of,
    gauge_estimate,
    last_total,
    override_context,
    tools_ready,
)
from tests.support.desktop_driver import (
    WAIT_MS,
    ask_with_selection,
    idle,
    open_context,
    screenshot,
    scripted,
    send,
)


def level(gauge: ContextGauge) -> str:
    return gauge.level


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


def test_a_what_if_that_would_not_fit_says_why_and_cannot_be_resent(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    ask_with_selection(qtbot, desktop)
    dialog = open_what_if(qtbot, desktop)
    compare(qtbot, dialog)
    assert dialog.resend_button.isEnabled()
    # What the core answers when the changed request cannot be built (see agent_core/chat/what_if.py).
    problem = "this request needs 5,244 tokens before any history, but the model's window leaves 3,096"
    original = dialog.original
    dialog._show(replace(original, manifest=None, notes=replace(original.notes, budget=problem)))
    side = dialog.what_if_side.summary
    assert side is not None
    assert side.totals.text() == f"No request could be built with these changes: {problem}"
    assert "Changed:" not in dialog.delta.text()  # no "Rules 209→0" from a request never built
    assert not dialog.resend_button.isEnabled() and problem in dialog.resend_button.toolTip()
    assert dialog.status.text() == problem
    screenshot(dialog, "what_if_does_not_fit")


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
