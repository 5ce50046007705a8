"""Where each app keeps its MCP servers inside its config file, and how it writes them.

Every app has an object of servers by name, but under a different key and with its own spelling of
a few settings: the :class:`ServerSource` found here says which app's file it is, so the server
blocks can be read in that app's dialect (``_server_dialects``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = ["Dialect", "ServerSource", "find_server_source"]

# generic: Claude Desktop/Code, Cursor, Cline, Roo, Windsurf (timeouts in seconds);
# gemini: Gemini CLI settings and extensions (timeouts in milliseconds, httpUrl, trust);
# vscode: VS Code (inputs); zed: Zed context_servers; goose: Goose config.yaml extensions.
Dialect = Literal["generic", "gemini", "vscode", "zed", "goose"]

# Keys only Gemini CLI writes in a server block.
_GEMINI_KEYS = frozenset({"httpUrl", "trust", "includeTools", "excludeTools"})
# Goose's extension types that describe a server process or endpoint (the others are built in).
_GOOSE_KEYS = frozenset({"cmd", "uri", "envs", "env_keys", "bundled"})


@dataclass(frozen=True)
class ServerSource:
    """The servers of one config file, and the app that wrote it."""

    app: str  # for the import report: "VS Code (.vscode/mcp.json)"
    dialect: Dialect
    servers: Mapping[str, Any]
    # VS Code's ``inputs``: what ``${input:id}`` asks the user for, by id.
    inputs: Mapping[str, str] = field(default_factory=dict)
    folder: str | None = None  # the file's folder, where the app resolves relative names


def find_server_source(data: Any, path: Path | None = None) -> ServerSource | None:
    """The servers in a parsed config file, or None when it holds none in a shape we know."""
    if not isinstance(data, Mapping):
        return None
    name = path.name if path is not None else ""
    folder = path.parent.name if path is not None else ""
    servers = data.get("mcpServers")
    if isinstance(servers, Mapping):
        if name == "gemini-extension.json" or folder == ".gemini" or _has_keys(servers, _GEMINI_KEYS):
            if name == "gemini-extension.json":
                where = str(path.parent.resolve()) if path is not None else None
                return ServerSource("Gemini CLI extension", "gemini", servers, folder=where)
            return ServerSource("Gemini CLI settings", "gemini", servers)
        return ServerSource(_generic_app(name, folder), "generic", servers)
    if isinstance(data.get("servers"), Mapping):
        return ServerSource("VS Code (mcp.json)", "vscode", data["servers"], _inputs(data.get("inputs")))
    vscode = data.get("mcp")
    if isinstance(vscode, Mapping) and isinstance(vscode.get("servers"), Mapping):
        return ServerSource(
            "VS Code settings (mcp.servers)", "vscode", vscode["servers"], _inputs(vscode.get("inputs"))
        )
    if isinstance(data.get("context_servers"), Mapping):
        return ServerSource("Zed settings (context_servers)", "zed", data["context_servers"])
    extensions = data.get("extensions")
    if isinstance(extensions, Mapping) and _has_keys(extensions, _GOOSE_KEYS | {"type"}):
        return ServerSource("Goose config (extensions)", "goose", extensions)
    return None


def _generic_app(name: str, folder: str) -> str:
    if name == "mcp_config.json":
        return "Windsurf (mcp_config.json)"
    if name == ".mcp.json":
        return "Claude Code (.mcp.json)"
    if name == "claude_desktop_config.json":
        return "Claude Desktop"
    if folder == ".cursor":
        return "Cursor (.cursor/mcp.json)"
    if name in ("cline_mcp_settings.json", "mcp_settings.json"):
        return "Cline / Roo Code"
    return "mcpServers JSON"


def _has_keys(servers: Mapping[str, Any], keys: frozenset[str]) -> bool:
    return any(isinstance(block, Mapping) and keys & set(block) for block in servers.values())


def _inputs(raw: Any) -> dict[str, str]:
    """VS Code ``inputs`` by id, each with its description (what the value is for)."""
    if not isinstance(raw, list):
        return {}
    return {
        str(item["id"]): str(item.get("description") or item["id"])
        for item in raw
        if isinstance(item, Mapping) and item.get("id")
    }
