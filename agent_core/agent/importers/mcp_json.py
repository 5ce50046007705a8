"""``{"mcpServers": {...}}`` blocks as used by Claude Desktop, Cursor, Cline and others."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_core.agent.importers._common import (
    AgentImportError,
    ImportedAgent,
    Importer,
    ImportReport,
    read_import_text,
    read_structured_file,
)
from agent_core.agent.importers._servers import convert_server
from agent_core.plugins import Register

__all__ = [
    "detects_mcp_json",
    "import_mcp_json",
    "is_mcp_json",
    "register_importers",
    "servers_from_mcp_json",
]

# Where editors keep the file in a project folder, in the order they are looked for.
_FILES_IN_A_FOLDER = ("mcp.json", ".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json")

# Cline marks tools that run without asking; VS Code calls the section "servers".
_APPROVAL_KEYS = ("alwaysAllow", "autoApprove")


def is_mcp_json(data: Any) -> bool:
    return isinstance(data, Mapping) and (
        isinstance(data.get("mcpServers"), Mapping) or isinstance(data.get("servers"), Mapping)
    )


def detects_mcp_json(source: Path) -> bool:
    """A folder holding an MCP config file, or a JSON or YAML file with an ``mcpServers`` object."""
    if source.is_dir():
        return _file_in(source) is not None
    try:
        return is_mcp_json(read_structured_file(source))
    except AgentImportError:
        return False


def _import_detected(source: Path, *, copy_secrets: bool) -> ImportedAgent:
    if source.is_dir():
        found = _file_in(source)
        if found is None:
            raise AgentImportError(
                f"no MCP config file in {source}: expected one of {', '.join(_FILES_IN_A_FOLDER)}"
            )
        return import_mcp_json(found, copy_secrets=copy_secrets)
    return servers_from_mcp_json(read_structured_file(source), source=str(source), copy_secrets=copy_secrets)


def _file_in(folder: Path) -> Path | None:
    return next((folder / name for name in _FILES_IN_A_FOLDER if (folder / name).is_file()), None)


def register_importers(register: Register[Importer]) -> None:
    """The mcpServers importer: MCP config files of Claude Desktop, Cursor, VS Code, Cline."""
    register(
        "mcp-json",
        Importer(
            "an mcpServers JSON file (mcp.json, .cursor/mcp.json or .vscode/mcp.json)",
            detects_mcp_json,
            _import_detected,
        ),
    )


def import_mcp_json(path: Path, *, copy_secrets: bool = False) -> ImportedAgent:
    """MCP servers from a JSON config file.

    Raises:
        AgentImportError: the file is not JSON or has no ``mcpServers`` (or ``servers``) object.
    """
    try:
        data = json.loads(read_import_text(path))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise AgentImportError(f"cannot read {path} as JSON ({error}): check the file") from error
    return servers_from_mcp_json(data, source=str(path), copy_secrets=copy_secrets)


def servers_from_mcp_json(data: Any, *, source: str = "JSON", copy_secrets: bool = False) -> ImportedAgent:
    """The same, from parsed JSON (the desktop app's "paste an mcpServers block").

    Raises:
        AgentImportError: ``data`` has no ``mcpServers`` (or ``servers``) object.
    """
    if not is_mcp_json(data):
        raise AgentImportError(
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
