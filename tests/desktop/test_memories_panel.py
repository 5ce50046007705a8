"""The Memories tab: the agent's memories listed, filtered, forgotten, restored, pinned, accepted;
the model alone first, then the panel driven as a user would."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from agent_core.memory.book import MemoryDraft
from agent_core.memory.records import Memory, Provenance
from desktop.app import DesktopApp
from desktop.models.memories import MemoriesModel, MemoryColumn
from tests.support.desktop_driver import WAIT_MS, screenshot


def memory(memory_id: str, text: str, **changes: object) -> Memory:
    base = Memory(
        memory_id, text, "fact", "agent", "long", "active", 3, "/a", None, Provenance(quote=text), 1.0, 1.0
    )
    return Memory(**{**vars(base), **changes})  # type: ignore[arg-type]


def test_the_model_shows_words_status_and_use_without_a_view() -> None:
    model = MemoriesModel()
    model.set_memories(
        [memory("m-1", "my cat is called Miso", tier="pinned"), memory("m-2", "I use vim", status="proposed")]
    )
    assert model.rowCount() == 2 and model.columnCount() == 6
    cell = lambda row, column: model.index(row, column).data()  # noqa: E731
    assert (
        cell(0, MemoryColumn.TEXT) == "my cat is called Miso"
        and cell(0, MemoryColumn.STATUS) == "Active · pinned"
    )
    assert cell(1, MemoryColumn.STATUS) == "Proposed" and cell(1, MemoryColumn.USED) == "never"
    assert model.index(0, 0).data(Qt.ItemDataRole.UserRole) == "m-1"
    assert model.index(5, 0).data() is None  # out of range: nothing, never an error


def test_the_panel_lists_forgets_restores_and_pins(qtbot: QtBot, desktop: DesktopApp) -> None:
    workspace = desktop.host.workspace
    assert workspace is not None
    workspace.selector.start_loading()
    qtbot.waitUntil(workspace.selector.model_ready, timeout=60_000)
    book = workspace.memories.book_for(workspace.agent)
    cat = book.add(MemoryDraft("my cat is called Miso")).memory
    book.add(MemoryDraft("I work on the billing service"), "extractor", status="proposed")
    panel = desktop.window.memories_panel
    desktop.window.side_tabs.setCurrentWidget(panel)
    panel.refresh()
    qtbot.waitUntil(lambda: panel.model.rowCount() == 2, timeout=WAIT_MS)
    screenshot(desktop.window.side_tabs, "memories_panel")

    row = next(r for r in range(2) if panel.model.memory_at(r).id == cat.id)  # type: ignore[union-attr]
    panel.table.selectRow(row)
    assert panel.forget_button.isEnabled() and not panel.accept_button.isEnabled()
    qtbot.mouseClick(panel.forget_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.model.rowCount() == 1, timeout=WAIT_MS)
    assert book.get(cat.id).status == "forgotten" and "Forgotten" in panel.status.text()

    panel.status_filter.setCurrentIndex(1)  # the Forgotten list
    qtbot.waitUntil(
        lambda: panel.model.rowCount() == 1 and panel.model.memory_at(0).id == cat.id, timeout=WAIT_MS
    )  # type: ignore[union-attr]
    panel.table.selectRow(0)
    qtbot.mouseClick(panel.restore_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: book.get(cat.id).status == "active", timeout=WAIT_MS)

    panel.status_filter.setCurrentIndex(0)
    qtbot.waitUntil(lambda: panel.model.rowCount() == 2, timeout=WAIT_MS)
    proposed = next(r for r in range(2) if panel.model.memory_at(r).status == "proposed")  # type: ignore[union-attr]
    panel.table.selectRow(proposed)
    qtbot.mouseClick(panel.accept_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: all(m.status == "active" for m in book.find()), timeout=WAIT_MS)

    panel.search.setText("Miso")
    qtbot.waitUntil(lambda: panel.model.rowCount() == 1, timeout=WAIT_MS)
    panel.table.selectRow(0)
    qtbot.mouseClick(panel.pin_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: book.get(cat.id).tier == "pinned", timeout=WAIT_MS)
    # The table reloads after a change and keeps the selected memory selected.
    qtbot.waitUntil(
        lambda: panel.model.rowCount() == 1 and panel.model.memory_at(0).tier == "pinned",  # type: ignore[union-attr]
        timeout=WAIT_MS,
    )
    assert panel.selected() is not None and panel.selected().id == cat.id  # type: ignore[union-attr]
    assert panel.pin_button.text() == "Unpin"
    qtbot.mouseClick(panel.history_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: getattr(panel, "last_history", None) is not None, timeout=WAIT_MS)
    assert "forgotten by user" in panel.last_history.informativeText()
    assert "pinned by user" in panel.last_history.informativeText()


def test_the_panel_edits_rejects_and_filters_by_scope_and_tier(qtbot: QtBot, desktop: DesktopApp) -> None:
    workspace = desktop.host.workspace
    assert workspace is not None
    workspace.selector.start_loading()
    qtbot.waitUntil(workspace.selector.model_ready, timeout=60_000)
    book = workspace.memories.book_for(workspace.agent)
    tea = book.add(MemoryDraft("I drink green tea", scope="global")).memory
    shell = book.add(MemoryDraft("I use fish as my shell", tier="short")).memory
    guess = book.add(MemoryDraft("I live in Bergen"), "extractor", status="proposed").memory
    assert tea is not None and shell is not None and guess is not None
    panel = desktop.window.memories_panel
    panel.refresh()
    qtbot.waitUntil(lambda: panel.model.rowCount() == 3, timeout=WAIT_MS)

    panel.scope_filter.setCurrentIndex(panel.scope_filter.findData("global"))
    qtbot.waitUntil(lambda: [m.id for m in panel.model.memories()] == [tea.id], timeout=WAIT_MS)
    panel.scope_filter.setCurrentIndex(0)
    panel.tier_filter.setCurrentIndex(panel.tier_filter.findData("short"))
    qtbot.waitUntil(lambda: [m.id for m in panel.model.memories()] == [shell.id], timeout=WAIT_MS)

    panel.table.selectRow(0)
    assert panel.edit_button.isEnabled() and not panel.reject_button.isEnabled()
    qtbot.mouseClick(panel.edit_button, Qt.MouseButton.LeftButton)
    assert panel.editor.text() == "I use fish as my shell"
    panel.editor.setText("I use zsh as my shell")
    qtbot.keyClick(panel.editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: book.get(shell.id).text == "I use zsh as my shell", timeout=WAIT_MS)
    assert panel.editor_row.isHidden()
    assert [e.event for e in book.history(shell.id)][-1] == "edited"

    panel.tier_filter.setCurrentIndex(0)
    qtbot.waitUntil(lambda: panel.model.rowCount() == 3, timeout=WAIT_MS)
    row = next(r for r in range(3) if panel.model.memory_at(r).id == guess.id)  # type: ignore[union-attr]
    panel.table.selectRow(row)
    qtbot.mouseClick(panel.reject_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: book.get(guess.id).status == "rejected", timeout=WAIT_MS)


def test_in_the_narrow_side_panel_the_words_come_first_and_a_wide_one_shows_every_column(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    panel = desktop.window.memories_panel
    desktop.window.side_tabs.setCurrentWidget(panel)
    panel.model.set_memories([memory("m-1", "my cat is called Miso and she is nine years old")])
    qtbot.waitUntil(lambda: panel.table.width() > 0 and panel.isVisible(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: panel.table.isColumnHidden(MemoryColumn.SCOPE), timeout=WAIT_MS)
    hidden = [c for c in MemoryColumn if panel.table.isColumnHidden(c)]
    assert hidden == [MemoryColumn.KIND, MemoryColumn.SCOPE, MemoryColumn.IMPORTANCE]
    assert panel.table.columnWidth(MemoryColumn.TEXT) > panel.table.viewport().width() // 2
    screenshot(desktop.window.side_tabs, "memories_panel_narrow")
    panel.resize(900, 500)  # e.g. the side panel dragged wide
    qtbot.waitUntil(lambda: not panel.table.isColumnHidden(MemoryColumn.SCOPE), timeout=WAIT_MS)
    assert not any(panel.table.isColumnHidden(c) for c in MemoryColumn)


def test_the_panel_warns_when_pinned_memories_are_over_the_token_budget(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    workspace = desktop.host.workspace
    assert workspace is not None
    workspace.selector.start_loading()
    qtbot.waitUntil(workspace.selector.model_ready, timeout=60_000)
    book = workspace.memories.book_for(workspace.agent)
    for topic in ("sailing", "pottery"):
        text = " ".join(f"{topic} note {n} for the club." for n in range(70))[:1990]
        book.add(MemoryDraft(text, tier="pinned"), on_conflict="keep_both")
    panel = desktop.window.memories_panel
    panel.refresh()
    qtbot.waitUntil(
        lambda: panel.model.rowCount() == 2 and panel.pins_warning.isVisibleTo(panel), timeout=WAIT_MS
    )
    assert "over memory.maxTokens (600)" in panel.pins_warning.text()
    assert "unpin some memories" in panel.pins_warning.text()
