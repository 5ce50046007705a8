"""Token costs, the gauge level, comparisons and what-if toggles, without views."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Qt
from PySide6.QtTest import QAbstractItemModelTester
from pytestqt.qtbot import QtBot

from agent_core.context.items import (
    ContextManifest,
    ItemRef,
    ManifestPart,
    NearMiss,
    RequestContext,
    RequestItem,
    SelectionRun,
    TrimAction,
)
from desktop.dialogs.what_if import without_mentions
from desktop.models.context_items import ContextItemsModel, Role, request_rows
from desktop.models.manifest import (
    ComparisonModel,
    PartsModel,
    breakdown,
    compare,
    cost_of,
    describe_totals,
    gauge_level,
    gauge_tooltip,
)
from desktop.models.what_if import ToggleItemsModel, resend_effects

STYLE = ItemRef("rule", "style")
GUIDE = ItemRef("reference", "guide")
READ = ItemRef("tool", "read_file", "fs")
NOTES = ItemRef("reference", "notes")


def manifest(
    window: int = 1000, reserve: int = 200, *, history: int = 100, guide: int = 50
) -> ContextManifest:
    return ContextManifest(
        window=window,
        window_source="chat",
        reply_reserve=reserve,
        counter="scripted tokenizer",
        exact=False,
        parts=(
            ManifestPart("system_prompt", 10),
            ManifestPart("rule", 20, "style"),
            ManifestPart("tool", 30, "fs__read_file"),
            ManifestPart("history", history, detail="4 messages"),
            ManifestPart("selected_reference", guide, "guide", "chunks 2, 5 of 9"),
            ManifestPart("message", 8),
            ManifestPart("framing", 4),
            ManifestPart("framing", 6),
        ),
        trimmed=(TrimAction("history_dropped", "2 older messages left out to fit the window", 40),),
    )


def context(
    m: ContextManifest | None, *items: RequestItem, misses: tuple[NearMiss, ...] = ()
) -> RequestContext:
    return RequestContext(items, "scripted:x", SelectionRun(20, 5, 0.7), misses, manifest=m)


ORIGINAL = context(
    manifest(),
    RequestItem(STYLE, "always"),
    RequestItem(READ, "always"),
    RequestItem(GUIDE, "agent", 0.8),
    misses=(NearMiss(NOTES, 0.4, "outside_top_n"),),
)


def test_parts_add_up_by_kind_in_bar_order() -> None:
    groups = [(group.label, tokens) for group, tokens in breakdown(ORIGINAL.manifest)]  # type: ignore[arg-type]
    assert groups == [
        ("System prompt", 10),
        ("Rules", 20),
        ("References", 50),
        ("Tools", 30),
        ("History", 100),
        ("Message", 8),
        ("Framing", 10),
    ]


def test_items_find_their_cost_by_kind_and_name_and_tools_by_their_model_facing_name() -> None:
    m = ORIGINAL.manifest
    assert cost_of(m, STYLE).tokens == 20  # type: ignore[union-attr]
    assert cost_of(m, READ).tokens == 30  # type: ignore[union-attr]
    assert cost_of(m, GUIDE).detail == "chunks 2, 5 of 9"  # type: ignore[union-attr]
    assert cost_of(m, NOTES) is None and cost_of(None, STYLE) is None


def test_request_rows_carry_token_costs_and_chunk_details(qtbot: QtBot) -> None:
    model = ContextItemsModel(request_rows(ORIGINAL, "reference", None))
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    index = model.index(0, 0)
    assert index.data(Role.TOKENS) == 50 and index.data(Role.DETAIL) == "chunks 2, 5 of 9"
    assert "50 tokens (chunks 2, 5 of 9)" in index.data(Qt.ItemDataRole.ToolTipRole)
    older = ContextItemsModel(request_rows(context(None, RequestItem(STYLE, "always")), "rule", None))
    assert older.index(0, 0).data(Role.TOKENS) is None


def test_the_gauge_is_green_under_60_percent_amber_under_85_and_red_beyond() -> None:
    # The room is window - reserve = 800 tokens; the parts use 228.
    assert gauge_level(None) == "empty"
    assert gauge_level(context(None)) == "empty"
    assert gauge_level(context(manifest(history=351))) == "ok"  # 479 / 800, just under 60%
    assert gauge_level(context(manifest(history=352))) == "warn"  # 480 / 800 = 60%
    assert gauge_level(context(manifest(history=551))) == "warn"  # 679 / 800, just under 85%
    assert gauge_level(context(manifest(history=552))) == "over"  # 680 / 800 = 85%


def test_totals_and_tooltip_say_where_the_window_came_from_and_what_was_trimmed() -> None:
    m = manifest()
    assert describe_totals(m) == (
        "228 of 800 tokens (window 1,000 from chat, 200 reserved for the reply; counts estimated)"
    )
    tip = gauge_tooltip(m)
    assert "History: 100" in tip and "Framing: 10" in tip
    assert "• 2 older messages left out to fit the window (saved 40 tokens)" in tip


def test_parts_model_sums_framing_into_one_row(qtbot: QtBot) -> None:
    model = PartsModel(manifest())
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    rows = [tuple(model.index(r, c).data() for c in range(4)) for r in range(model.rowCount())]
    assert rows[-1] == ("framing", "", "10", "tags, separators and role markers")
    assert ("selected reference", "guide", "50", "chunks 2, 5 of 9") in rows
    model.set_manifest(None)
    assert model.rowCount() == 0


def test_a_comparison_marks_items_added_and_removed_with_both_costs(qtbot: QtBot) -> None:
    what_if = context(
        manifest(guide=0),
        RequestItem(STYLE, "always"),
        RequestItem(NOTES, "manual"),
    )
    rows = {row.ref: row for row in compare(ORIGINAL, what_if)}
    assert rows[STYLE].change == "kept" and (rows[STYLE].before_tokens, rows[STYLE].after_tokens) == (20, 20)
    assert rows[GUIDE].change == "removed" and rows[GUIDE].after_mode is None
    assert rows[NOTES].change == "added" and rows[NOTES].before_mode is None
    model = ComparisonModel()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.set_contexts(ORIGINAL, what_if)
    texts = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert "− reference  guide" in texts and "+ reference  notes" in texts
    guide = model.index(texts.index("− reference  guide"), 1)
    assert guide.data() == "Agent 0.80 · 50 tok"
    assert model.index(texts.index("− reference  guide"), 0).data(Qt.ItemDataRole.ForegroundRole) is not None


def test_toggling_items_excludes_used_ones_and_includes_near_misses(qtbot: QtBot) -> None:
    model = ToggleItemsModel(ORIGINAL)
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    assert [row.ref for row in model.rows()] == [STYLE, READ, GUIDE, NOTES]
    assert model.include() == [] and model.exclude() == []
    model.setData(model.index(0), Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)
    model.set_checked(NOTES, True)
    assert model.exclude() == [STYLE] and model.include() == [NOTES]
    assert model.index(3).data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked


def test_resending_a_what_if_says_every_change_it_makes_to_the_chat(qtbot: QtBot) -> None:
    model = ToggleItemsModel(ORIGINAL)
    current = {"top_k": 20, "top_n": 5, "include_score": 0.7, "strategy": "hybrid"}
    unchanged = resend_effects(current, dict(current), [], [], {STYLE, READ})
    assert unchanged.changes == () and unchanged.button_text() == "Resend"
    assert "stay as they are" in unchanged.summary()

    model.set_checked(NOTES, True)  # a near-miss: it joins the chat
    one = resend_effects(current, dict(current), model.included_rows(), model.excluded_rows(), {STYLE, READ})
    assert one.button_text() == "Resend (adds reference notes to this chat as Manual)"

    model.set_checked(STYLE, False)  # one of the chat's items: it leaves the chat
    model.set_checked(GUIDE, False)  # selection chose it: it may be chosen again
    selection = {**current, "strategy": "anchor", "include_score": 0.7000001}
    effects = resend_effects(current, selection, model.included_rows(), model.excluded_rows(), {STYLE, READ})
    assert effects.changes == (
        "Strategy hybrid → anchor",
        "adds reference notes to this chat as Manual",
        "removes rule style from this chat",
    )
    assert effects.caveats == (
        "reference guide is not one of this chat's items, so selection may choose it again",
    )
    assert effects.button_text() == "Resend and change this chat (3 changes)"
    assert effects.summary().startswith("Resending changes this chat: Strategy hybrid → anchor; adds")
    assert effects.summary().endswith("so selection may choose it again.")


def test_resent_text_drops_mentions_of_items_left_out() -> None:
    text = "@ref:guide @rule:style How do I name things? @ref:notes"
    assert without_mentions(text, [GUIDE, STYLE]) == "How do I name things? @ref:notes"
    assert without_mentions("@ref:guidebook hi", [GUIDE]) == "@ref:guidebook hi"


def test_memories_to_toggle_are_named_by_their_words() -> None:
    from agent_core.context.items import NearMiss, RequestItem

    cat, shell = ItemRef("memory", "m-1"), ItemRef("memory", "m-2")
    context = replace(
        ORIGINAL,
        items=(*ORIGINAL.items, RequestItem(cat, "agent", 0.81, "matched 'cat'")),
        near_misses=(*ORIGINAL.near_misses, NearMiss(shell, 0.22, "under memory.minRelevance")),
    )
    model = ToggleItemsModel(context, memory_texts={"m-1": "my cat is called Miso"})
    labels = [model.index(r).data() for r in range(model.rowCount())]
    assert "memory  “my cat is called Miso”  (Agent 0.81)" in labels
    assert "memory  m-2  (not included 0.22)" in labels  # its words are gone: named by id
