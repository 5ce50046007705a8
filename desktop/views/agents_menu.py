"""The File menu's agent entries: open a folder, recent agents, create from the default, import."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QInputDialog, QMenu, QMessageBox, QWidget

from agent_core.agent.agent import AGENT_FILE
from agent_core.agent.importers import ImportReport, import_source
from agent_core.agent.scaffold import create_agent
from agent_core.errors import ContextDeskError
from desktop.bridge import CoreBridge
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.dialogs.import_report import ImportReportDialog
from desktop.settings import recent_agents, remove_recent_agent

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
        menu.addAction("Import agent from a file…", self.import_agent)
        menu.addAction("Import agent from a folder (skills, a project)…", self.import_agent_folder)

    def open_path(self, path: Path) -> None:
        if not (path / AGENT_FILE).is_file():
            QMessageBox.warning(
                self.parent,
                "Not an agent",
                f"{path} has no {AGENT_FILE}: choose an agent folder, or use New agent…",
            )
            remove_recent_agent(path)
            return
        self.host.open(path)

    def open_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.parent, "Open agent folder")
        if folder:
            self.open_path(Path(folder))

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
        folder = QFileDialog.getExistingDirectory(self.parent, "Choose an empty folder for the new agent")
        if not folder:
            return
        name, ok = QInputDialog.getText(self.parent, "New agent", "Name", text=Path(folder).name)
        if not ok:
            return
        target = Path(folder)
        self.bridge.call(
            lambda: create_agent(target, name=name.strip() or None),
            on_result=lambda agent: self.host.open(agent.root),
            on_error=self._failed,
        )

    def import_agent(self) -> None:
        source, _ = QFileDialog.getOpenFileName(
            self.parent,
            "Import: a TsAgent agent, Cursor rules or an mcpServers JSON file",
            "",
            "Agents (*.yaml *.yml *.json *.mdc);;All files (*)",
        )
        if source:
            self._import_into_chosen_agent(Path(source))

    def import_agent_folder(self) -> None:
        source = QFileDialog.getExistingDirectory(
            self.parent,
            "Import: a skill folder, a folder of skills (.claude/skills, a cloned collection), a project "
            "(AGENTS.md, CLAUDE.md, .cursor/rules, .claude/agents) or a TsAgent agent folder",
        )
        if source:
            self._import_into_chosen_agent(Path(source))

    def _import_into_chosen_agent(self, source: Path) -> None:
        target = QFileDialog.getExistingDirectory(
            self.parent, "Import into which agent folder (new or existing)?"
        )
        if not target:
            return
        target_path = Path(target)

        def done(report: ImportReport) -> None:
            ImportReportDialog(report, self.parent).open()  # the whole report, scrollable
            self.host.open(target_path)

        self.bridge.call(import_source, source, target_path, on_result=done, on_error=self._failed)

    def _failed(self, error: BaseException) -> None:
        text = str(error) if isinstance(error, ContextDeskError) else repr(error)
        QMessageBox.warning(self.parent, "Agent", text)
