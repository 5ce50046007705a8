"""The File menu's agent entries: open a folder, recent agents, create from the default, import."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QMenu, QMessageBox, QWidget

from agent_core.agent.agent import AGENT_FILE
from agent_core.agent.importers import ImportReport, detected_formats
from agent_core.agent.scaffold import agent_folder_in, create_agent
from agent_core.errors import ContextDeskError
from desktop.bridge import CoreBridge
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.dialogs.import_agent import ImportAgentDialog
from desktop.dialogs.import_report import ImportReportDialog
from desktop.settings import recent_agents, remove_recent_agent
from desktop.views.file_dialogs import choose_folder

__all__ = ["AgentsMenu"]


class AgentsMenu:
    """Adds its actions to ``menu`` and opens agents through ``host``."""

    def __init__(self, menu: QMenu, bridge: CoreBridge, host: WorkspaceHost, parent: QWidget) -> None:
        self.bridge = bridge
        self.host = host
        self.parent = parent
        menu.addAction("Open agent folder…", self.open_folder)
        self.recent = menu.addMenu("Recent agents")
        self.recent.aboutToShow.connect(self._fill_recent)
        menu.addAction("New agent…", self.new_agent)
        menu.addAction("Import agent (a file or a folder)…", lambda: self.import_agent())
        self.last_import_dialog: ImportAgentDialog | None = None

    def open_path(self, path: Path) -> None:
        """Open the agent in ``path``; a folder without an agent.yaml that holds what ContextDesk
        imports (Cursor rules, .claude, AGENTS.md, skills, an MCP config) is offered for import."""
        if (path / AGENT_FILE).is_file():
            self.host.open(path)
            return

        def offer(found: list[str]) -> None:
            if found:
                self.import_agent(
                    source=path,
                    intro=f"{path} is not an agent folder (it has no {AGENT_FILE}), but it holds what "
                    "ContextDesk imports. Import it into a new agent, which then opens; the folder "
                    "itself is left as it is.",
                )
                return
            QMessageBox.warning(
                self.parent,
                "Not an agent",
                f"{path} has no {AGENT_FILE} and nothing ContextDesk imports: choose an agent folder, "
                "or use New agent…",
            )
            remove_recent_agent(path)

        self.bridge.call(detected_formats, path, on_result=offer, on_error=self._failed)

    def open_folder(self) -> None:
        folder = choose_folder(self.parent, "Open agent folder")
        if folder is not None:
            self.open_path(folder)

    def _fill_recent(self) -> None:
        self.recent.clear()
        current = self.host.agent.root if self.host.agent else None
        paths = recent_agents()
        for path in paths:
            action = self.recent.addAction(str(path))
            action.triggered.connect(partial(self.open_path, path))
            action.setCheckable(True)
            action.setChecked(path == current)
        if not paths:
            self.recent.addAction("No recent agents").setEnabled(False)

    def new_agent(self) -> None:
        """Ask the agent's name, then where it goes: an empty folder becomes the agent, any other
        gets a new folder named after it (no folder has to exist beforehand)."""
        name, ok = QInputDialog.getText(self.parent, "New agent", "Name of the new agent")
        if not ok:
            return
        place = choose_folder(
            self.parent, "Where to create the agent: an empty folder, or a folder to make its folder in"
        )
        if place is None:
            return
        target = agent_folder_in(place, name)
        self.bridge.call(
            lambda: create_agent(target, name=name.strip() or None),
            on_result=lambda agent: self.host.open(agent.root),
            on_error=self._failed,
        )

    def import_agent(self, source: Path | None = None, intro: str = "") -> ImportAgentDialog:
        """The import dialog (a file or a folder, into an agent folder or a new one by name); once
        it has imported, its report is shown and the agent opens."""
        dialog = ImportAgentDialog(self.bridge, self.parent, source=source, intro=intro)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.imported.connect(self._imported)
        self.last_import_dialog = dialog
        dialog.open()
        return dialog

    def _imported(self, report: ImportReport, target: Path) -> None:
        dialog = ImportReportDialog(report, self.parent)  # the whole report, scrollable
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        if not report.nothing_imported:  # then no agent was created, or the chosen one is unchanged
            self.host.open(target)

    def _failed(self, error: BaseException) -> None:
        text = str(error) if isinstance(error, ContextDeskError) else repr(error)
        QMessageBox.warning(self.parent, "Agent", text)
