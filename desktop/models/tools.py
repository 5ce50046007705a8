"""MCP servers with their status, and the tools they offer with include mode and permission."""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from agent_core.mcp.types import ServerState, ServerStatus, ToolInfo
from desktop.models._table import RowTableModel

__all__ = ["ServerColumn", "ServerRole", "ServerStatusModel", "ToolColumn", "ToolListModel", "ToolRole"]


STATE_COLOURS = {
    ServerState.READY: "#1f8a4c",
    ServerState.STARTING: "#b7791f",
    ServerState.FAILED: "#c0392b",
    ServerState.DISABLED: "#7b8494",
    ServerState.STOPPED: "#7b8494",
    ServerState.UNTRUSTED: "#b7791f",
}


class ServerColumn(IntEnum):
    NAME = 0
    TRANSPORT = 1
    STATE = 2
    TOOLS = 3
    DETAIL = 4


class ServerRole(IntEnum):
    STATUS = Qt.ItemDataRole.UserRole + 1
    NAME = Qt.ItemDataRole.UserRole + 2


class ServerStatusModel(RowTableModel[ServerStatus]):
    """One row per configured server, in configuration order; updates keep rows in place."""

    HEADERS = ("Server", "Type", "Status", "Tools", "Detail")

    def set_statuses(self, statuses: Sequence[ServerStatus]) -> None:
        if [s.name for s in statuses] == [s.name for s in self._rows]:
            for row, status in enumerate(statuses):
                if status != self._rows[row]:
                    self._rows[row] = status
                    self.dataChanged.emit(self.index(row, 0), self.index(row, len(ServerColumn) - 1), [])
            return
        self._reset_rows(statuses)

    def status(self, row: int) -> ServerStatus:
        return self._rows[row]

    def row_of(self, name: str) -> int | None:
        return next((i for i, s in enumerate(self._rows) if s.name == name), None)

    def cell_data(self, status: ServerStatus, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if column == ServerColumn.NAME:
                return status.name
            if column == ServerColumn.TRANSPORT:
                return status.transport
            if column == ServerColumn.STATE:
                return status.state.value
            if column == ServerColumn.TOOLS:
                return str(status.tool_count) if status.state is ServerState.READY else ""
            if status.reason:
                return status.reason.splitlines()[0]
            return " ".join(p for p in (status.server_name, status.server_version) if p)
        if role == Qt.ItemDataRole.ForegroundRole and column == ServerColumn.STATE:
            return QColor(STATE_COLOURS.get(status.state, "#7b8494"))
        if role == Qt.ItemDataRole.ToolTipRole:
            return status.reason or status.instructions or status.name
        if role == ServerRole.STATUS:
            return status
        if role == ServerRole.NAME:
            return status.name
        return None


class ToolColumn(IntEnum):
    NAME = 0
    INCLUDE = 1
    PERMISSION = 2
    HINTS = 3  # what the server says the tool does: read-only, destructive, ...
    DESCRIPTION = 4


DESTRUCTIVE_COLOUR = "#c0392b"
HINT_TIPS = {
    "read-only": "The server says this tool changes nothing.",
    "destructive": "The server says this tool may delete or overwrite things: it is asked about before "
    "it runs, whatever the server's default, unless you set this tool to run without asking.",
    "idempotent": "The server says running it twice with the same arguments does no more than once.",
    "open-world": "The server says this tool reaches beyond the server (the web, other systems).",
}


class ToolRole(IntEnum):
    TOOL = Qt.ItemDataRole.UserRole + 1


class ToolListModel(RowTableModel[ToolInfo]):
    HEADERS = ("Tool", "Include", "Permission", "Hints", "Description")

    def set_tools(self, tools: Sequence[ToolInfo]) -> None:
        self._reset_rows(sorted(tools, key=lambda t: (t.server, t.name)))

    def tool(self, row: int) -> ToolInfo:
        return self._rows[row]

    def cell_data(self, tool: ToolInfo, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                ToolColumn.NAME: f"{tool.server}.{tool.name}",
                ToolColumn.INCLUDE: tool.include.value.capitalize(),
                ToolColumn.PERMISSION: "Ask first" if tool.permission_required else "Runs without asking",
                ToolColumn.HINTS: " · ".join(tool.annotations.badges),
                ToolColumn.DESCRIPTION: (tool.description or "").splitlines()[0] if tool.description else "",
            }[ToolColumn(column)]
        if (
            role == Qt.ItemDataRole.ForegroundRole
            and column == ToolColumn.HINTS
            and tool.annotations.is_destructive
        ):
            return QColor(DESTRUCTIVE_COLOUR)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == ToolColumn.HINTS:
                return (
                    "\n".join(HINT_TIPS[badge] for badge in tool.annotations.badges)
                    or "No hints from the server."
                )
            return tool.description or tool.name
        if role == ToolRole.TOOL:
            return tool
        return None
