"""Context item rows and their sorting, without views."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtTest import QAbstractItemModelTester
from pytestqt.qtbot import QtBot

from agent_core.agent import load_agent
from agent_core.context.items import ItemRef, NearMiss, RequestContext, RequestItem, SelectionRun
from desktop.models.context_items import (
    Column,
    ContextItemsModel,
    ContextRow,
    Role,
    near_miss_rows,
    request_rows,
    sorted_proxy,
)


def make_agent(tmp_path: Path) -> Path:
    root = tmp_path / "a"
    (root / "rules").mkdir(parents=True)
    (root / "references").mkdir()
    (root / "agent.yaml").write_text("name: A\n")
    for name, priority in (("zeta", 5), ("alpha", 5), ("late", 900)):
        (root / "rules" / f"{name}.md").write_text(
            f"---\ndescription: about {name}\npriorityLevel: {priority}\ninclude: agent\n---\ntext\n"
        )
    return root


CONTEXT = RequestContext(
    items=(
        RequestItem(ItemRef("rule", "late"), "always"),
        RequestItem(ItemRef("rule", "zeta"), "agent", 0.8123),
        RequestItem(ItemRef("rule", "alpha"), "manual"),
        RequestItem(ItemRef("rule", "gone"), "manual"),
        RequestItem(ItemRef("tool", "read", "files"), "always"),
        RequestItem(ItemRef("tool", "add", "calc"), "agent", 0.5),
        RequestItem(ItemRef("tool", "ping", "calc"), "manual"),
    ),
    model="scripted:x",
    selection=SelectionRun(20, 5, 0.7),
    near_misses=(NearMiss(ItemRef("rule", "alpha"), 0.31, "outside_top_n"),),
)


def shown(model: ContextItemsModel) -> list[tuple[str, ...]]:
    proxy = sorted_proxy(model)
    return [
        tuple(proxy.index(r, c).data() for c in (Column.PREFIX, Column.NAME, Column.MODE, Column.SCORE))
        for r in range(proxy.rowCount())
    ]


def test_rules_sort_by_priority_then_name_with_three_digit_priorities_and_scores(
    tmp_path: Path, qtbot: QtBot
) -> None:
    agent = load_agent(make_agent(tmp_path))
    model = ContextItemsModel(request_rows(CONTEXT, "rule", agent))
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    assert shown(model) == [
        ("005", "alpha", "Manual", ""),
        ("005", "zeta", "Agent", "0.81"),
        ("900", "late", "Always", ""),
        ("", "gone", "Manual", ""),
    ]
    assert model.index(3, 0).data(Role.REMOVED) is True
    assert model.index(0, Column.NAME).data(Role.DESCRIPTION) == "about late"
    assert "about late" in model.index(0, Column.NAME).data(0x03)  # ToolTipRole


def test_tools_sort_by_server_then_name_with_a_server_prefix(qtbot: QtBot) -> None:
    model = ContextItemsModel(request_rows(CONTEXT, "tool", None))
    assert [row[:2] for row in shown(model)] == [("calc.", "add"), ("calc.", "ping"), ("files.", "read")]
    assert model.index(0, 0).data(Role.REMOVED) is False  # a tool whose server is down is not "removed"


def test_near_misses_carry_their_reason_in_words(tmp_path: Path, qtbot: QtBot) -> None:
    agent = load_agent(make_agent(tmp_path))
    model = ContextItemsModel(near_miss_rows(CONTEXT.near_misses, "rule", agent))
    assert model.rowCount() == 1
    assert model.index(0, 0).data(Role.REASON) == "good match, but topN better items were chosen"
    assert model.index(0, 0).data(Role.MODE) is None
    assert model.index(0, Column.SCORE).data() == "0.31"


def test_near_misses_sort_best_first_whatever_their_names(qtbot: QtBot) -> None:
    # A pack of skills described alike: the one the message nearly got (0.65, not named) leads,
    # as `contextdesk select` lists them, not the alphabetically first.
    misses = [
        NearMiss(ItemRef("skill", "cal-com-automation"), 0.23, "below_floor", needed=0.45),
        NearMiss(ItemRef("skill", "google-meet-automation"), 0.65, "not_named"),
        NearMiss(ItemRef("skill", "daily-prep"), 0.39, "below_floor", needed=0.45),
    ]
    proxy = sorted_proxy(ContextItemsModel(near_miss_rows(misses, "skill", None)))
    names = [proxy.index(row, Column.NAME).data(Role.NAME) for row in range(proxy.rowCount())]
    assert names == ["google-meet-automation", "daily-prep", "cal-com-automation"]
    assert proxy.index(0, Column.NAME).data(Role.REASON).startswith("one of many items described alike")


def test_a_near_miss_under_the_minimum_says_the_score_it_needed_and_got(qtbot: QtBot) -> None:
    misses = (
        NearMiss(ItemRef("rule", "pirate"), 0.3712, "below_floor", needed=0.45),
        NearMiss(ItemRef("rule", "old"), 0.31, "below_floor"),  # saved before the minimum was kept
    )
    model = ContextItemsModel(near_miss_rows(misses, "rule", None))
    assert model.index(0, 0).data(Role.REASON) == "under minScore: needed 0.45, got 0.37"
    assert "Not included: under minScore: needed 0.45, got 0.37" in model.index(0, 0).data(0x03)
    assert model.index(1, 0).data(Role.REASON) == "under minScore"


def test_the_floor_a_near_miss_missed_is_named_and_a_near_tie_is_not_rounded_away(qtbot: QtBot) -> None:
    misses = (
        NearMiss(ItemRef("rule", "a"), 0.52, "below_question_floor", needed=0.55),
        NearMiss(ItemRef("rule", "b"), 0.47, "below_clause_floor", needed=0.5),
        NearMiss(ItemRef("rule", "c"), 0.4496, "below_floor", needed=0.45),
    )
    model = ContextItemsModel(near_miss_rows(misses, "rule", None))
    reasons = {model.index(r, Column.NAME).data(): model.index(r, 0).data(Role.REASON) for r in range(3)}
    assert reasons["a"] == ("under minScore raised for a question: needed 0.55, got 0.52")
    assert (
        reasons["b"].startswith("under the stricter minScore of the request it matched")
        and "needed 0.50" in reasons["b"]
    )
    assert reasons["c"] == "under minScore: needed 0.4500, got 0.4496"  # not "0.45, got 0.45"


def test_a_reason_the_core_wrote_in_words_keeps_its_names_as_they_are(qtbot: QtBot) -> None:
    miss = NearMiss(ItemRef("tool", "read_file", "workspace"), 0.5, "only workspace.list_files was sent")
    model = ContextItemsModel(near_miss_rows([miss], "tool", None))
    assert model.index(0, 0).data(Role.REASON) == "only workspace.list_files was sent"


def test_setting_rows_resets_the_model(qtbot: QtBot) -> None:
    model = ContextItemsModel()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    with qtbot.waitSignals([model.modelAboutToBeReset, model.modelReset], timeout=1000):
        model.set_rows(request_rows(CONTEXT, "tool", None))
    assert model.rowCount() == 3 and model.columnCount() == len(Column)
    assert (
        model.headerData(Column.MODE, __import__("PySide6.QtCore").QtCore.Qt.Orientation.Horizontal)
        == "Included"
    )


def test_a_resource_attached_from_a_server_is_a_reference_with_its_title_not_a_removed_item(
    tmp_path: Path,
) -> None:
    from agent_core.agent.items import DocumentItem
    from agent_core.context.items import SessionItem
    from desktop.models.context_items import session_rows

    agent = load_agent(make_agent(tmp_path))
    ref = ItemRef("reference", "demo://greeting", "demo")
    attached = {
        ref: DocumentItem(kind="reference", name="demo://greeting", description="greeting", text="Hello")
    }
    rows = session_rows([SessionItem(ref, "manual")], "reference", agent, (), attached)
    assert [(r.ref, r.removed, r.description, r.prefix) for r in rows] == [
        (ref, False, "greeting — resource of demo", "")
    ]
    context = RequestContext(
        items=(RequestItem(ref, "manual"),), model="scripted:x", selection=SelectionRun(20, 5, 0.7)
    )
    (row,) = request_rows(
        context, "reference", agent
    )  # the chat's attachments not given: still not "removed"
    assert (row.removed, row.description) == (False, "Resource of demo")


def test_a_score_badge_shows_the_figure_its_reason_does_never_one_equal_to_the_floor_it_failed(
    qtbot: QtBot,
) -> None:
    misses = (
        NearMiss(ItemRef("rule", "a"), 0.4496, "below_floor", needed=0.45),
        NearMiss(ItemRef("rule", "b"), 0.44996, "below_floor", needed=0.45),
        NearMiss(ItemRef("rule", "c"), 0.37, "below_floor", needed=0.45),
    )
    model = ContextItemsModel(near_miss_rows(misses, "rule", None))
    shown = {
        model.index(r, Column.NAME).data(): (
            model.index(r, 0).data(Role.SCORE_TEXT),
            model.index(r, Column.SCORE).data(),
            model.index(r, 0).data(Role.REASON),
        )
        for r in range(3)
    }
    assert shown["a"] == ("0.4496", "0.4496", "under minScore: needed 0.4500, got 0.4496")  # not a 0.45 badge
    # Rounded to four places it would read 0.4500 = the floor: it is cut instead.
    assert shown["b"] == ("0.4499", "0.4499", "under minScore: needed 0.4500, got 0.4499")
    assert shown["c"] == ("0.37", "0.37", "under minScore: needed 0.45, got 0.37")
    included = ContextItemsModel([ContextRow(ItemRef("rule", "d"), "agent", 0.4496)])
    assert included.index(0, 0).data(Role.SCORE_TEXT) == "0.45"  # no floor: two places
