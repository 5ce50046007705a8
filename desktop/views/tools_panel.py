"""Tools: the agent's MCP servers with their status and log, and each tool's include mode and permission."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.agent import Agent
from agent_core.agent.schema import (
    AgentConfig,
    IncludeMode,
    McpServerConfig,
    SseServerConfig,
    StdioServerConfig,
    StreamableHttpServerConfig,
    ToolSettings,
)
from agent_core.agent.server_secrets import keep_secrets_in_the_keyring
from agent_core.agent.server_trust import TrustGate
from agent_core.errors import ContextDeskError
from agent_core.mcp.oauth import store_secret
from agent_core.mcp.oauth_storage import OAuthSecretKind
from agent_core.mcp.types import ServerState, ServerStatus, ToolInfo
from desktop.bridge import CoreBridge
from desktop.controllers.agent_config import save_config_change
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.models.tools import (
    ServerColumn,
    ServerRole,
    ServerStatusModel,
    ToolColumn,
    ToolListModel,
    ToolRole,
)
from desktop.theme import colors
from desktop.views.tables import row_table

__all__ = ["ToolsPanel"]

_NOT_YET = (ServerState.STOPPED, ServerState.STARTING)


class ToolsPanel(QWidget):
    def __init__(self, bridge: CoreBridge, host: WorkspaceHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.host = host
        self.agent: Agent | None = None
        self._starting: tuple[str, ...] = ()  # servers just saved: the note says how they started
        # The provider:model refs the chat's model box offers (the main window sets where they come from).
        self.model_choices: Callable[[], Sequence[str]] = list
        self.servers = ServerStatusModel(self)
        self.tools = ToolListModel(self)
        layout = QVBoxLayout(self)
        splitter = QSplitter(Qt.Orientation.Vertical)
        layout.addWidget(splitter)

        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(QLabel("<b>MCP servers</b>"))
        self.server_table = row_table(self.servers, ServerColumn.DETAIL)
        self.server_table.setShowGrid(False)
        self.server_table.selectionModel().selectionChanged.connect(lambda *_: self._on_server_selected())
        top_layout.addWidget(self.server_table, 1)
        buttons = QHBoxLayout()
        self.add_button = QPushButton("Add…")
        self.edit_button = QPushButton("Edit…")
        self.remove_button = QPushButton("Remove")
        self.restart_button = QPushButton("Restart")
        self.ping_button = QPushButton("Ping")
        for button in (
            self.add_button,
            self.edit_button,
            self.remove_button,
            self.restart_button,
            self.ping_button,
        ):
            buttons.addWidget(button)
        self.note = QLabel()
        self.note.setStyleSheet(f"color: {colors().muted};")
        self.note.setWordWrap(True)  # an error's text never widens the window
        self.note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        buttons.addWidget(self.note, 1)
        top_layout.addLayout(buttons)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setPlaceholderText("The selected server's status and last log lines")
        self.log.setMaximumHeight(120)
        top_layout.addWidget(self.log)
        splitter.addWidget(top)

        bottom = QWidget()
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addWidget(QLabel("<b>Tools</b> (of servers that are ready)"))
        self.tool_table = row_table(self.tools, ToolColumn.DESCRIPTION)
        self.tool_table.setShowGrid(False)
        self.tool_table.selectionModel().selectionChanged.connect(lambda *_: self._on_tool_selected())
        bottom_layout.addWidget(self.tool_table, 1)
        tool_row = QHBoxLayout()
        self.include = QComboBox()
        for mode in IncludeMode:
            self.include.addItem(mode.value.capitalize(), mode.value)
        self.ask = QCheckBox("Ask before running")
        self.apply_button = QPushButton("Apply")
        self.run_button = QPushButton("Run…")
        tool_row.addWidget(QLabel("Include"))
        tool_row.addWidget(self.include)
        tool_row.addWidget(self.ask)
        tool_row.addWidget(self.apply_button)
        tool_row.addStretch(1)
        tool_row.addWidget(self.run_button)
        bottom_layout.addLayout(tool_row)
        splitter.addWidget(bottom)

        self.add_button.clicked.connect(lambda: self.edit_server(None))
        self.edit_button.clicked.connect(lambda: self.edit_server(self._selected_server()))
        self.remove_button.clicked.connect(self.remove_server)
        self.restart_button.clicked.connect(self.restart_server)
        self.ping_button.clicked.connect(self.ping_server)
        self.apply_button.clicked.connect(self.apply_tool_settings)
        self.run_button.clicked.connect(self.run_tool)
        self._on_server_selected()
        self._on_tool_selected()

    # --- data ---------------------------------------------------------------------------------

    def set_agent(self, agent: Agent) -> None:
        self.agent = agent

    def set_statuses(self, statuses: list[ServerStatus]) -> None:
        self.servers.set_statuses(statuses)
        manager = self.host.mcp
        self.tools.set_tools(manager.tools() if manager is not None else [])
        self._on_server_selected()
        self._report_start(statuses)

    def _report_start(self, statuses: Sequence[ServerStatus]) -> None:
        """Once the servers just saved have started (or failed), the note says so instead of "starting…"."""
        if not self._starting:
            return
        by_name = {status.name: status for status in statuses}
        saved = [by_name.get(name) for name in self._starting]
        # Stopped comes first: the reloaded agent knows the server before it is started.
        started = [status for status in saved if status is not None and status.state not in _NOT_YET]
        if len(started) < len(saved):
            return
        self._starting = ()
        self._say(
            "Saved " + "; ".join(f"{status.name}: {_outcome(status)}" for status in started),
            error=any(status.state is ServerState.FAILED for status in started),
            detail="\n".join(status.reason for status in started if status.reason),
        )

    def _selected_server(self) -> str | None:
        index = self.server_table.currentIndex()
        return index.data(ServerRole.NAME) if index.isValid() else None

    def _selected_tool(self) -> ToolInfo | None:
        index = self.tool_table.currentIndex()
        return index.data(ToolRole.TOOL) if index.isValid() else None

    def _on_server_selected(self) -> None:
        name = self._selected_server()
        for button in (self.edit_button, self.remove_button, self.restart_button, self.ping_button):
            button.setEnabled(name is not None)
        row = self.servers.row_of(name) if name else None
        if row is None:
            self.log.setPlainText("")
            return
        status = self.servers.status(row)
        lines = [f"{status.name}: {status.state.value}"]
        if status.reason:
            lines.append(status.reason)
        if status.server_name:
            lines.append(f"Server: {status.server_name} {status.server_version or ''}".rstrip())
        if status.log_tail:
            lines += ["", "Log:", *status.log_tail]
        self.log.setPlainText("\n".join(lines))

    def _on_tool_selected(self) -> None:
        tool = self._selected_tool()
        for widget in (self.include, self.ask, self.apply_button, self.run_button):
            widget.setEnabled(tool is not None)
        if tool is not None:
            self.include.setCurrentIndex(max(0, self.include.findData(tool.include.value)))
            self.ask.setChecked(tool.permission_required)

    # --- actions ------------------------------------------------------------------------------

    def _save_config(
        self,
        change: Callable[[AgentConfig], None],
        message: str | Callable[[], str],
        starting: Sequence[str] = (),
    ) -> None:
        """Save ``change`` and reload the agent; ``starting``: servers whose start the note then
        follows. ``message`` may be a function, asked once the change is made."""
        agent = self.agent
        if agent is None:
            return

        def done(_: None) -> None:
            self._say(message if isinstance(message, str) else message())
            self._starting = tuple(starting)
            self.host.reload_agent()

        self.bridge.call(save_config_change, agent, change, on_result=done, on_error=self._failed)

    def edit_server(self, name: str | None) -> None:
        from desktop.dialogs.server_dialog import ServerDialog

        if self.agent is None:
            return
        servers = self.agent.config.mcp_servers
        dialog = ServerDialog(
            name or "",
            servers.get(name) if name else None,
            set(servers),
            self,
            models=self.model_choices(),
            providers=set(self.agent.config.providers),
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self._save_servers(name, dialog.servers(), dialog.oauth_secrets()))
        self.server_dialog = dialog
        dialog.open()

    def _save_servers(
        self,
        name: str | None,
        added: dict[str, McpServerConfig],
        secrets: Mapping[OAuthSecretKind, str] | None = None,
    ) -> None:
        """Save what the server dialog gave; ``name`` is the server edited (None when adding).
        ``secrets`` (OAuth) go to the keyring, never to agent.yaml."""
        gate = TrustGate(self.agent.root) if self.agent is not None else None
        agent_name = self.agent.name if self.agent is not None else "agent"
        moved: list[str] = []

        def change(config: Any) -> None:
            kept = dict(added)
            for server, server_config in added.items():  # off the GUI thread: the keyring may block
                if isinstance(server_config, StreamableHttpServerConfig):
                    for kind, value in (secrets or {}).items():
                        store_secret(server, server_config, kind, value)
                if isinstance(
                    server_config, StdioServerConfig | SseServerConfig | StreamableHttpServerConfig
                ):
                    secured = keep_secrets_in_the_keyring(agent_name, server, server_config)
                    kept[server] = secured.config
                    moved.extend(f"{server}'s {what}" for what in secured.moved)
            updated = dict(config.mcp_servers)
            if name and name not in added:
                updated.pop(name, None)  # renamed
            updated.update(kept)
            config.mcp_servers = updated
            if gate is not None:
                gate.trust(kept)  # the user wrote them here, seeing what they run

        def saved() -> str:
            note = f"Saved {', '.join(added)}; starting…"
            if moved:
                note += f" ({', '.join(moved)}: kept in the system keyring, not in agent.yaml)"
            return note

        self._save_config(change, saved, starting=list(added))

    def remove_server(self) -> None:
        name = self._selected_server()
        if name is None:
            return

        def change(config: Any) -> None:
            config.mcp_servers = {k: v for k, v in config.mcp_servers.items() if k != name}

        self._save_config(change, f"Removed {name}")

    def restart_server(self) -> None:
        name, manager = self._selected_server(), self.host.mcp
        if name is None or manager is None:
            return
        if (row := self.servers.row_of(name)) is not None and self.servers.status(
            row
        ).state is ServerState.UNTRUSTED:
            self.host.ask_trust()  # it starts only once trusted: ask again
            return
        self._say(f"Restarting {name}…")
        self.bridge.submit(
            manager.restart(name),
            lambda s: self._say(f"{name}: {_outcome(s)}", error=s.state is ServerState.FAILED),
            self._failed,
        )

    def ping_server(self) -> None:
        name, manager = self._selected_server(), self.host.mcp
        if name is None or manager is None:
            return
        self.bridge.submit(
            manager.ping(name),
            lambda t: self._say(f"{name} answered in {t * 1000:.0f} ms"),
            self._failed,
        )

    def apply_tool_settings(self) -> None:
        tool = self._selected_tool()
        if tool is None:
            return
        include = IncludeMode(self.include.currentData())
        ask = self.ask.isChecked()

        def change(config: Any) -> None:
            server = config.mcp_servers[tool.server]
            tools = dict(server.tools)
            tools[tool.name] = ToolSettings(include=include, permission_required=ask)
            config.mcp_servers = {
                **config.mcp_servers,
                tool.server: server.model_copy(update={"tools": tools}),
            }

        self._save_config(change, f"Saved {tool.server}.{tool.name}")

    def run_tool(self) -> None:
        from desktop.dialogs.run_tool import RunToolDialog

        tool, manager = self._selected_tool(), self.host.mcp
        if tool is None or manager is None:
            return
        dialog = RunToolDialog(self.bridge, manager, tool, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.run_dialog = dialog
        dialog.show()

    def _failed(self, error: BaseException) -> None:
        self._starting = ()
        self._say(str(error) if isinstance(error, ContextDeskError) else repr(error), error=True)

    def _say(self, text: str, *, error: bool = False, detail: str = "") -> None:
        """The note under the servers: the last action's outcome, red only while it is a failure."""
        self.note.setText(text)
        self.note.setToolTip(detail)
        palette = colors()
        self.note.setStyleSheet(f"color: {palette.error if error else palette.muted};")


def _outcome(status: ServerStatus) -> str:
    if status.state is ServerState.READY:
        return f"ready, {status.tool_count} tool{'' if status.tool_count == 1 else 's'}"
    if status.state is ServerState.FAILED:
        return "failed to start (select it for why)"  # the reason can be long: it is in the log
    return status.state.value
