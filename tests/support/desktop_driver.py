"""Driving the desktop app in tests: send a message, wait for the reply, open dialogs, take screenshots.

The app itself comes from the fixtures in tests/desktop/conftest.py.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from agent_core.providers.scripted import ScriptedProvider
from desktop.app import DesktopApp, create_app
from desktop.dialogs.view_context import ViewContextDialog
from desktop.models.context_items import Column
from desktop.views.manage_window import ManageWindow
from desktop.views.message_widgets import MessageWidget
from tests.support.desktop_fakes import PRELOADING_TYPE, PreloadingProvider
from tests.support.paths import REPO_ROOT

SCREENSHOTS = REPO_ROOT / "artifacts" / "screenshots"
# How long a desktop test waits for something that should happen: every wait returns as soon as it
# does, so this only bounds a failing test. 15 s was too short for an npm server to start on two
# cores busy with other work.
WAIT_MS = 60_000


def scripted(app: DesktopApp) -> ScriptedProvider:
    workspace = app.host.workspace
    assert workspace is not None
    provider, _ = workspace.providers.resolve("scripted:x")
    assert isinstance(provider, ScriptedProvider)
    return provider


def settle() -> None:
    """Let posted layout requests run, so a grab shows the final geometry."""
    for _ in range(5):
        QApplication.processEvents()


def screenshot(widget: QWidget, name: str) -> Path:
    settle()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    widget.grab().save(str(path))
    return path


def send(qtbot: QtBot, app: DesktopApp, text: str) -> None:
    view = app.window.current_view()
    assert view is not None
    view.composer.setPlainText(text)
    qtbot.keyClick(view.composer, Qt.Key.Key_Return)


def idle(app: DesktopApp) -> bool:
    controller = app.window.current_controller()
    return controller is not None and not controller.busy and controller.conversation.rowCount() > 0


def column_rows(dialog: ViewContextDialog, item_type: str) -> list[tuple[str, str, str, str]]:
    """(prefix, name, mode, score) in the order the column shows them."""
    proxy = dialog.columns[item_type].items_view.proxy  # type: ignore[index]
    return [
        tuple(
            proxy.index(row, column).data()
            for column in (Column.PREFIX, Column.NAME, Column.MODE, Column.SCORE)
        )
        for row in range(proxy.rowCount())
    ]


def last_reply(app: DesktopApp) -> MessageWidget:
    view = app.window.current_view()
    assert view is not None
    widget = [w for w in view.conversation.widgets() if isinstance(w, MessageWidget)][-1]
    assert widget.entry is not None and widget.entry.kind == "assistant"
    return widget


def open_context(qtbot: QtBot, app: DesktopApp) -> ViewContextDialog:
    reply = last_reply(app)
    qtbot.mouseClick(reply.context_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: app.window.dialogs.last_context_dialog is not None, timeout=WAIT_MS)
    dialog = app.window.dialogs.last_context_dialog
    assert isinstance(dialog, ViewContextDialog)
    return dialog


def ask_with_selection(qtbot: QtBot, app: DesktopApp) -> None:
    workspace = app.host.workspace
    assert workspace is not None
    workspace.selector.start_loading()
    qtbot.waitUntil(workspace.selector.model_ready, timeout=60_000)
    # The workspace tools start in the background: wait for them, or the reply may have none.
    qtbot.waitUntil(lambda: len(app.host.tools.tools()) > 0, timeout=WAIT_MS)
    scripted(app).enqueue_reply("Use snake_case names and type hints.")
    send(qtbot, app, "@ref:release-notes How should I name my Python functions and write code?")
    qtbot.waitUntil(lambda: idle(app), timeout=WAIT_MS)


def names(app: DesktopApp, item_type: str) -> list[str]:
    section = app.window.context_panel.sections[item_type]  # type: ignore[index]
    return [section.proxy.index(r, Column.NAME).data() for r in range(section.proxy.rowCount())]


def open_manager(qtbot: QtBot, app: DesktopApp, tab: str) -> ManageWindow:
    app.window.open_manager(tab)
    manager = app.window._manage_window
    assert isinstance(manager, ManageWindow)
    qtbot.waitUntil(lambda: manager.rules.model.rowCount() > 0, timeout=WAIT_MS)
    return manager


def use_model(agent_dir: Path, model_ref: str) -> None:
    """Make ``model_ref`` (on the provider ``warm``, a model that loads like a local one) the chat model."""
    path = agent_dir / "agent.yaml"
    text = path.read_text().replace("model: scripted:x", f"model: {model_ref}")
    path.write_text(
        text.replace("  scripted: {}\n", f"  scripted: {{}}\n  warm:\n    type: {PRELOADING_TYPE}\n")
    )


def start(qtbot: QtBot, agent_dir: Path, factory: object = None) -> DesktopApp:
    create_app()
    app = DesktopApp(factory)  # type: ignore[arg-type]
    app.start(agent_dir)
    qtbot.waitUntil(lambda: app.window.current_controller() is not None, timeout=WAIT_MS)
    return app


def warm_provider(app: DesktopApp) -> PreloadingProvider:
    workspace = app.host.workspace
    assert workspace is not None
    provider, _ = workspace.providers.resolve("warm:_")
    assert isinstance(provider, PreloadingProvider)
    return provider
