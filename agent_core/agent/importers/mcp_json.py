"""``{"mcpServers": {...}}`` blocks as used by Claude Desktop, Cursor, Cline and others."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_core.agent.importers._common import ImportedAgent, ImportError_, ImportReport
from agent_core.agent.importers._servers import convert_server

__all__ = ["import_mcp_json", "is_mcp_json", "servers_from_mcp_json"]

# Cline marks tools that run without asking; VS Code calls the section "servers".
_APPROVAL_KEYS = ("alwaysAllow", "autoApprove")


def is_mcp_json(data: Any) -> bool:
    return isinstance(data, Mapping) and (
        isinstance(data.get("mcpServers"), Mapping) or isinstance(data.get("servers"), Mapping)
    )


def import_mcp_json(path: Path, *, copy_secrets: bool = False) -> ImportedAgent:
    """MCP servers from a JSON config file.

    Raises:
        ImportError_: the file is not JSON or has no ``mcpServers`` (or ``servers``) object.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ImportError_(f"cannot read {path} as JSON ({error}): check the file") from error
    return servers_from_mcp_json(data, source=str(path), copy_secrets=copy_secrets)


def servers_from_mcp_json(data: Any, *, source: str = "JSON", copy_secrets: bool = False) -> ImportedAgent:
    """The same, from parsed JSON (the desktop app's "paste an mcpServers block").

    Raises:
        ImportError_: ``data`` has no ``mcpServers`` (or ``servers``) object.
    """
    if not is_mcp_json(data):
        raise ImportError_(
            f'{source} has no "mcpServers" object: paste a block like '
            '{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}'
        )
    imported = ImportedAgent(report=ImportReport("mcpServers JSON"))
    servers = data.get("mcpServers") if isinstance(data.get("mcpServers"), Mapping) else data["servers"]
    for raw_name, block in servers.items():
        converted = convert_server(
            str(raw_name),
            block,
            imported.report,
            copy_secrets=copy_secrets,
            extra_known=frozenset(_APPROVAL_KEYS),
        )
        if converted is None:
            continue
        name, out = converted
        approved = [str(tool) for key in _APPROVAL_KEYS for tool in (block.get(key) or [])]
        if approved:
            out["tools"] = {tool: {"permissionRequired": False} for tool in approved}
        imported.mcp_servers[name] = out
    return imported
