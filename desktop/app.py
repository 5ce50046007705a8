"""Starting the desktop app: ``contextdesk`` with no command calls :func:`main`.

The window appears at once; the agent opens on the core thread, and the embedding model loads
when the app is idle. Set ``CONTEXTDESK_AGENT=/path/to/agent`` to open a given agent folder;
otherwise the last agent used (or the user's default agent) opens.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from agent_core.errors import ContextDeskError
from agent_core.resources import app_icon
from desktop.bridge import CoreBridge
from desktop.controllers.workspace_host import WorkspaceFactory, WorkspaceHost, preload_core
from desktop.gui_thread_gc import collect_on_gui_thread
from desktop.mcp_apps.engine import prepare_webengine
from desktop.preflight import display_problem
from desktop.settings import recent_agents
from desktop.signal_refcount import mend_signal_emit
from desktop.theme import apply_theme
from desktop.views.main_window import MainWindow

__all__ = ["AGENT_ENV", "EXIT_AFTER_SHOWN_ENV", "DesktopApp", "create_app", "main", "startup_agent"]

logger = logging.getLogger(__name__)

AGENT_ENV = "CONTEXTDESK_AGENT"
# A smoke start, for checking an installed copy: print when the window is shown and the chat is
# open, then quit. The packaging check (packaging/check.py) sets it.
EXIT_AFTER_SHOWN_ENV = "CONTEXTDESK_EXIT_AFTER_SHOWN"


def startup_agent() -> Path | None:
    """``$CONTEXTDESK_AGENT``, else the last agent opened if it still exists, else None (the default)."""
    chosen = os.environ.get(AGENT_ENV)
    if chosen:
        return Path(chosen).expanduser()
    for path in recent_agents():
        if (path / "agent.yaml").is_file():
            return path
    return None


class DesktopApp:
    """The bridge, the workspace host and the main window, wired together."""

    def __init__(self, factory: WorkspaceFactory | None = None) -> None:
        app = QApplication.instance()
        collector = None
        if app is not None:  # before the core thread starts: no Qt object may be collected there
            collector = collect_on_gui_thread(app)
        self.bridge = CoreBridge()
        self.bridge.call(preload_core)  # in parallel with building the window
        self.host = WorkspaceHost(self.bridge, factory)
        self.window = MainWindow(self.bridge, self.host)
        self.host.elicitation_asker.parent_window = self.window
        self.host.sign_in_asker.parent_window = self.window
        self.host.trust_asker.parent_window = self.window
        if collector is not None:
            self.window.ready.connect(collector.freeze_startup)
        self._closed = False

    def start(self, agent_dir: Path | None = None) -> None:
        self.window.show()
        self.host.open(agent_dir)

    def close(self) -> None:
        """Stop replies, servers and providers, close the store and the core thread."""
        if self._closed:
            return
        self._closed = True
        self.window.close()
        self.bridge.shutdown(self.host.aclose())


def create_app(argv: list[str] | None = None) -> QApplication:
    mend_signal_emit()  # before any signal is emitted (desktop/signal_refcount.py)
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        prepare_webengine()  # before the QApplication, or MCP Apps views cannot be shown
        app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setOrganizationName("ContextDesk")
    app.setApplicationName("ContextDesk")
    app.setApplicationDisplayName("ContextDesk")
    app.setDesktopFileName("contextdesk")  # matches packaging/linux/contextdesk.desktop
    try:
        app.setWindowIcon(QIcon(str(app_icon())))
    except ContextDeskError as error:  # an incomplete installation: the app still runs, without its icon
        logger.warning("%s", error)
    from desktop.dialogs.preferences import saved_scheme

    apply_theme(app, saved_scheme())  # CONTEXTDESK_THEME still wins (theme.py)
    return app


def main() -> int:
    if (problem := display_problem()) is not None:
        print(f"contextdesk: the desktop app cannot start: {problem}", file=sys.stderr)
        return 2
    app = create_app()
    desktop = DesktopApp()
    app.aboutToQuit.connect(desktop.close)
    if os.environ.get(EXIT_AFTER_SHOWN_ENV):
        _exit_after_shown(app, desktop.window)
    QTimer.singleShot(0, lambda: desktop.start(startup_agent()))
    return int(app.exec())


def _exit_after_shown(app: QApplication, window: MainWindow) -> None:
    """Say when the window is on screen with its message box focused, and when the chat is open;
    then quit (exit code 1 if the window was never exposed on the display)."""
    # A copy of stdout taken now: llama.cpp points file descriptor 1 at /dev/null while it loads
    # the model on the core thread, which would swallow a line printed meanwhile.
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)

    def exposed() -> bool:
        handle = window.windowHandle()
        return handle is not None and handle.isExposed()

    def shown() -> None:
        out.write(f"window shown: {window.windowTitle()}\n" if exposed() else "window not exposed\n")

    def chat_open() -> None:
        out.write("chat open\n")
        out.close()
        app.exit(0 if exposed() else 1)

    window.input_ready.connect(shown)
    window.ready.connect(lambda: QTimer.singleShot(0, chat_open))


if __name__ == "__main__":
    sys.exit(main())
