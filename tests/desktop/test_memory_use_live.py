"""The Memories tab's "Used" column follows recall live: a reply that recalls a memory refreshes
the tab from the chat's events (no polling, no manual refresh)."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from agent_core.memory.book import MemoryDraft
from desktop.app import DesktopApp
from desktop.models.memories import MemoryColumn
from tests.support.desktop_driver import WAIT_MS, idle, scripted, send


def test_used_in_the_memories_tab_counts_a_recall_as_soon_as_the_reply_has_its_context(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    workspace = desktop.host.workspace
    assert workspace is not None
    workspace.selector.start_loading()
    qtbot.waitUntil(workspace.selector.model_ready, timeout=60_000)
    book = workspace.memories.book_for(workspace.agent)
    cat = book.add(MemoryDraft("my cat is called Miso")).memory
    assert cat is not None
    book.pin(cat.id)
    panel = desktop.window.memories_panel
    desktop.window.side_tabs.setCurrentWidget(panel)
    panel.refresh()
    qtbot.waitUntil(lambda: panel.model.rowCount() == 1, timeout=WAIT_MS)
    assert panel.model.index(0, MemoryColumn.USED).data() == "never"

    scripted(desktop).enqueue_reply("Your cat is called Miso.")
    send(qtbot, desktop, "what is my cat called?")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    assert book.get(cat.id).use_count == 1  # the core counted the recall
    qtbot.waitUntil(
        lambda: str(panel.model.index(0, MemoryColumn.USED).data()).startswith("1×"), timeout=WAIT_MS
    )
