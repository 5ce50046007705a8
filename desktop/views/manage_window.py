"""The agent's management window: Rules, References, Sub-agents, Workflows, Tools and Providers,
one tab each."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from agent_core.agent.agent import Agent
from agent_core.workspace import Workspace
from desktop.bridge import CoreBridge
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.settings import app_settings
from desktop.views.document_panel import DocumentPanel
from desktop.views.subagents_panel import SubagentsPanel
from desktop.views.window_geometry import place_window
from desktop.views.workflows_panel import WorkflowsPanel

__all__ = ["ManageWindow"]

PREFERRED_SIZE = QSize(1100, 720)
GEOMETRY_KEY = "manage/geometry"


class ManageWindow(QWidget):
    def __init__(self, bridge: CoreBridge, host: WorkspaceHost, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.bridge = bridge
        self.host = host
        self.setWindowTitle("Manage agent — ContextDesk")
        place_window(self, PREFERRED_SIZE, app_settings().value(GEOMETRY_KEY))
        layout = QVBoxLayout(self)
        self.tabs = QTabWidget()
        layout.addWidget(self.tabs)
        self.rules = DocumentPanel("rule", bridge)
        self.references = DocumentPanel("reference", bridge)
        for panel in (self.rules, self.references):
            panel.saved.connect(host.reload_agent)
        self.tabs.addTab(self.rules, "Rules")
        self.tabs.addTab(self.references, "References")
        self.subagents = SubagentsPanel(bridge, host)
        self.subagents.saved.connect(host.reload_agent)
        self.tabs.addTab(self.subagents, "Sub-agents")
        self.workflows = WorkflowsPanel(bridge, host)
        self.workflows.saved.connect(host.reload_agent)
        self.tabs.addTab(self.workflows, "Workflows")
        self.tools: Any = None
        self.providers: Any = None
        self._add_optional_panels()
        QShortcut(QKeySequence.StandardKey.Close, self, self.close)
        # As any secondary window: Esc closes it (a field's own Esc, a popup's, is handled first),
        # and Ctrl+Q still quits the app from here rather than being swallowed.
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.close)
        if parent is not None:
            QShortcut(QKeySequence.StandardKey.Quit, self, parent.window().close)

    def _add_optional_panels(self) -> None:
        from desktop.views.providers_panel import ProvidersPanel
        from desktop.views.tools_panel import ToolsPanel

        self.tools = ToolsPanel(self.bridge, self.host)
        self.providers = ProvidersPanel(self.bridge, self.host)
        self.tabs.addTab(self.tools, "Tools")
        self.tabs.addTab(self.providers, "Providers")

    def show_tab(self, name: str) -> None:
        for index in range(self.tabs.count()):
            if self.tabs.tabText(index).lower() == name.lower():
                self.tabs.setCurrentIndex(index)

    def bind_workspace(self, workspace: Workspace) -> None:
        self.agent_reloaded(workspace.agent)
        if self.host.mcp is not None:
            self.servers_changed(self.host.mcp.statuses())

    def agent_reloaded(self, agent: Agent) -> None:
        self.setWindowTitle(f"{agent.name} — Manage agent")
        self.rules.set_agent(agent)
        self.references.set_agent(agent)
        self.subagents.set_agent(agent)
        self.workflows.set_agent(agent)
        if self.tools is not None:
            self.tools.set_agent(agent)
        if self.providers is not None:
            self.providers.set_agent(agent)

    def closeEvent(self, event: QCloseEvent) -> None:
        settings = app_settings()
        settings.setValue(GEOMETRY_KEY, self.saveGeometry())
        settings.sync()
        super().closeEvent(event)

    def servers_changed(self, statuses: list[Any]) -> None:
        if self.tools is not None:
            self.tools.set_statuses(statuses)
