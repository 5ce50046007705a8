"""The chats list model: order, search rows, rename through setData, remove and restore."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QAbstractItemModelTester
from pytestqt.qtbot import QtBot

from agent_core.store.chats import SearchHit, StoredSession
from desktop.models.sessions import Column, Role, SessionListModel, SessionRow, rows_for_search


def session(id: str, title: str, updated: float) -> StoredSession:
    return StoredSession(id=id, title=title, agent_path="/a", created_at=0, updated_at=updated)


def test_renaming_in_place_emits_a_rename_request_and_shows_the_title(qtbot: QtBot) -> None:
    model = SessionListModel()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.set_rows([SessionRow("a", "", 1.0), SessionRow("b", "Old", 2.0)])
    assert model.index(0, Column.TITLE).data() == "New chat"
    assert model.flags(model.index(1, Column.TITLE)) & Qt.ItemFlag.ItemIsEditable
    assert not model.flags(model.index(1, Column.UPDATED)) & Qt.ItemFlag.ItemIsEditable
    with qtbot.waitSignal(model.rename_requested, timeout=1000) as signal:
        assert model.setData(model.index(1, Column.TITLE), "  Trip   plans ")
    assert signal.args == ["b", "Trip plans"]
    assert model.index(1, Column.TITLE).data() == "Trip plans"
    assert not model.setData(model.index(1, Column.TITLE), "   ")


def test_a_used_chat_moves_to_the_top_and_a_removed_one_can_be_restored(qtbot: QtBot) -> None:
    model = SessionListModel()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.set_rows([SessionRow("a", "A", 3.0), SessionRow("b", "B", 2.0), SessionRow("c", "C", 1.0)])
    model.upsert(SessionRow("c", "C2", 4.0))
    assert [model.index(r, 0).data(Role.SESSION_ID) for r in range(3)] == ["c", "a", "b"]
    removed = model.remove("a")
    assert removed is not None and model.rowCount() == 2
    model.restore(*removed)
    assert [model.index(r, 0).data(Role.SESSION_ID) for r in range(3)] == ["c", "a", "b"]


def test_search_rows_match_titles_or_message_text_newest_first() -> None:
    sessions = [session("n", "Newest about cats", 3), session("m", "Middle", 2), session("o", "Old", 1)]
    hits = [SearchHit("o", "Old", 9, "user", "the [cats] sat"), SearchHit("o", "Old", 10, "assistant", "x")]
    rows = rows_for_search("cats", sessions, hits)
    assert [(r.id, r.snippet) for r in rows] == [("n", ""), ("o", "the [cats] sat")]
