"""Learning from corrections in the window: adding an agent-mode item the reply missed teaches
selection, View Context of the next such message says why the item is in, and Agent ▸ What
selection learned… lists the correction and forgets it. Real MiniLM, scripted chat model."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from agent_core.context.items import ItemRef
from agent_core.context.learned import Correction
from desktop.app import DesktopApp
from desktop.dialogs.learned import LearnedDialog
from desktop.models.learned import LearnedModel
from tests.support.desktop_driver import WAIT_MS, idle, open_context, screenshot, scripted, send

MESSAGE = "hey, what's a good name for my cat?"
STYLE = ItemRef("reference", "python-style")


def test_the_learned_model_lists_newest_first_and_says_what_was_learned() -> None:
    old = Correction(1, "/a", STYLE, "name my cat", True, "s", time.time() - 60)
    new = Correction(2, "/a", ItemRef("tool", "read_file", "workspace"), "read it", False, "s", time.time())
    model = LearnedModel()
    model.set_corrections([old, new])
    assert model.rowCount() == 2 and model.correction_at(0) == new
    assert [model.index(0, c).data() for c in (1, 3)] == [
        "workspace.read_file",
        "not needed (you removed it)",
    ]
    assert [model.index(1, c).data() for c in (1, 2, 3)] == [
        "reference python-style",
        "name my cat",
        "needed (you added it)",
    ]


def _send(qtbot: QtBot, desktop: DesktopApp, text: str) -> None:
    scripted(desktop).enqueue_reply("ok")
    send(qtbot, desktop, text)
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)


def test_adding_a_missed_item_teaches_selection_and_the_agent_menu_forgets_it(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    workspace = desktop.host.workspace
    assert workspace is not None
    workspace.selector.start_loading()
    qtbot.waitUntil(workspace.selector.model_ready, timeout=60_000)
    _send(qtbot, desktop, MESSAGE)
    controller = desktop.window.current_controller()
    assert controller is not None
    context = controller.session_context_of_last_reply()
    assert context is not None and STYLE not in [i.ref for i in context.items]

    controller.add_item(STYLE)  # as the context panel's Add does
    qtbot.waitUntil(
        lambda: len(workspace.learned.corrections(str(workspace.agent.root))) == 1, timeout=WAIT_MS
    )

    desktop.window.new_chat()
    qtbot.waitUntil(lambda: desktop.window.current_controller() is not controller, timeout=WAIT_MS)
    _send(qtbot, desktop, MESSAGE)
    dialog = open_context(qtbot, desktop)
    rows = dialog.columns["reference"].items_view.proxy  # type: ignore[index]
    descriptions = [rows.index(r, 0).data(Qt.ItemDataRole.ToolTipRole) for r in range(rows.rowCount())]
    assert any("Selected because you added it after a similar message" in (d or "") for d in descriptions)
    dialog.close()

    desktop.window.dialogs.show_learned()
    learned = desktop.window.dialogs.last_learned_dialog
    assert isinstance(learned, LearnedDialog)
    qtbot.waitUntil(lambda: learned.model.rowCount() == 1, timeout=WAIT_MS)
    assert learned.model.index(0, 2).data() == MESSAGE
    screenshot(learned, "what_selection_learned")
    qtbot.mouseClick(learned.forget_all, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: learned.model.rowCount() == 0, timeout=WAIT_MS)
    assert workspace.learned.corrections(str(workspace.agent.root)) == []
    assert "Nothing learned yet" in learned.status.text()
    learned.close()
