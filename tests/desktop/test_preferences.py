"""File ▸ Preferences: the look applies at once and is kept; the system prompt is written to the
agent's agent.yaml and used by the next request."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from desktop.dialogs.preferences import PreferencesDialog, saved_scheme
from desktop.theme import apply_theme, is_dark
from tests.support.desktop_driver import WAIT_MS, idle, screenshot, scripted, send


def test_the_look_and_the_system_prompt_are_set_from_the_app(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path
) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    try:
        desktop.window.dialogs.show_preferences()
        dialog = desktop.window.dialogs.last_preferences_dialog
        assert isinstance(dialog, PreferencesDialog)
        assert dialog.prompt.toPlainText() == "You are a test assistant."
        dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))
        dialog.prompt.setPlainText("You are a terse assistant. Answer in one line.")
        screenshot(dialog, "preferences")
        save = next(b for b in dialog.findChildren(QDialogButtonBox)).button(
            QDialogButtonBox.StandardButton.Save
        )
        assert save is not None
        save.click()
        assert is_dark() and saved_scheme() == Qt.ColorScheme.Dark
        qtbot.waitUntil(lambda: "terse assistant" in (agent_dir / "agent.yaml").read_text(), timeout=WAIT_MS)
        workspace = desktop.host.workspace
        qtbot.waitUntil(
            lambda: (
                desktop.host.workspace is not None
                and desktop.host.workspace.agent.config.system_prompt.startswith("You are a terse")
            ),
            timeout=WAIT_MS,
        )
        assert workspace is not None
        scripted(desktop).enqueue_reply("ok")
        send(qtbot, desktop, "hello")
        qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
        assert scripted(desktop).requests[-1].messages[0].content.startswith("You are a terse assistant.")
    finally:
        apply_theme(app, None)  # back to the system's look for the other tests


def test_the_workspace_folder_and_new_servers_tools_are_set_in_preferences(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path, tmp_path: Path
) -> None:
    from desktop.dialogs.server_dialog import ServerDialog
    from desktop.settings import new_tools_include

    documents = tmp_path / "My Documents"
    documents.mkdir()
    desktop.window.dialogs.show_preferences()
    dialog = desktop.window.dialogs.last_preferences_dialog
    assert isinstance(dialog, PreferencesDialog)
    assert dialog.new_tools.currentData() == "agent"  # the default, with why beside it
    save = next(b for b in dialog.findChildren(QDialogButtonBox)).button(QDialogButtonBox.StandardButton.Save)
    assert save is not None

    # A folder that is not there is refused, with how to fix it; nothing is written.
    dialog.folder.setText(str(tmp_path / "nowhere"))
    save.click()
    assert dialog.isVisible() and "is not a folder on this computer" in dialog.problem.text()
    assert "nowhere" not in (agent_dir / "agent.yaml").read_text()

    dialog.folder.setText(str(documents))
    assert dialog.problem.isHidden()  # fixed: the error goes
    dialog.new_tools.setCurrentIndex(dialog.new_tools.findData("manual"))
    screenshot(dialog, "preferences_workspace_and_tools")
    save.click()
    assert not dialog.isVisible()
    qtbot.waitUntil(lambda: "My Documents" in (agent_dir / "agent.yaml").read_text(), timeout=WAIT_MS)
    qtbot.waitUntil(
        lambda: (
            desktop.host.workspace is not None
            and desktop.host.workspace.agent.config.mcp_servers["workspace"].options["root"]  # type: ignore[union-attr]
            == str(documents)
        ),
        timeout=WAIT_MS,
    )
    assert new_tools_include() == "manual"
    # The next server added offers that choice first.
    assert ServerDialog(taken={"workspace"}).new_tools.currentData() == "manual"
