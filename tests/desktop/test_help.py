"""Help ▸ Documentation reads the shipped pages inside the app; Help ▸ About names the version
and the licences."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from agent_core import __version__
from agent_core.resources import docs_dir
from desktop.app import DesktopApp
from desktop.dialogs.help import HelpDialog
from tests.support.desktop_driver import screenshot


def test_help_shows_the_shipped_pages_and_about_names_version_and_licences(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    assert docs_dir() is not None
    menus = [action.text() for action in desktop.window.menuBar().actions()]
    assert "&Help" in menus
    desktop.window.dialogs.show_help()
    dialog = desktop.window.dialogs.last_help_dialog
    assert isinstance(dialog, HelpDialog)
    titles = [dialog.pages.item(i).text() for i in range(dialog.pages.count())]
    assert (
        titles[:3] == ["Getting started", "Using the desktop app", "The agent folder"]
        and "Workflows" in titles
    )
    assert "python3 dev.py run" in dialog.view.markdown()  # the README, rendered
    dialog.pages.setCurrentRow(1)
    assert "Tab moves between the parts of the window" in dialog.view.markdown()
    dialog.pages.setCurrentRow(2)
    assert "agent.yaml" in dialog.view.markdown()
    screenshot(dialog, "help_documentation")
    dialog.close()
    desktop.window.dialogs.show_about()
    box = desktop.window.dialogs.last_about_box
    assert box is not None and f"ContextDesk {__version__}" in box.text() and "LGPL-3.0" in box.text()
    box.close()
