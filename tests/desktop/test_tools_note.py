"""A chat whose model cannot call tools says so in its Tools section and in View Context."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.views.context_panel import NO_TOOLS_NOTE
from tests.support.desktop_driver import (
    WAIT_MS,
    idle,
    open_context,
    screenshot,
    send,
    start,
    use_model,
    warm_provider,
)


def test_the_tools_section_and_view_context_say_when_the_model_cannot_call_tools(
    qtbot: QtBot, agent_dir: Path
) -> None:
    use_model(agent_dir, "warm:tiny")  # loads like a local model, and cannot call tools
    app = start(qtbot, agent_dir)
    try:
        provider = warm_provider(app)
        provider.release.set()
        tools = app.window.context_panel.sections["tool"]
        qtbot.waitUntil(
            lambda: tools.model.rowCount() == 4 and tools.note.isVisibleTo(app.window), timeout=WAIT_MS
        )
        assert tools.note.text() == NO_TOOLS_NOTE
        screenshot(app.window, "tools_note")

        provider.enqueue_reply("No tools for me.")
        send(qtbot, app, "What does notes.md say?")
        qtbot.waitUntil(lambda: idle(app), timeout=WAIT_MS)
        assert not provider.requests[-1].tools
        dialog = open_context(qtbot, app)
        note = dialog.columns["tool"].note
        assert not note.isHidden()
        assert note.text().startswith("warm:tiny cannot call tools, so none were offered.")
        assert "tool-capable model" in note.text()
        assert dialog.columns["rule"].note.isHidden()
        screenshot(dialog, "view_context_no_tools")
        dialog.close()

        controller = app.window.current_controller()
        assert controller is not None
        controller.override_settings(chat={"model": "scripted:x"})
        qtbot.waitUntil(lambda: tools.note.isHidden(), timeout=WAIT_MS)
    finally:
        app.close()
