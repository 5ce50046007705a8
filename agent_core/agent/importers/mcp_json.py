"""MCP server configs of other apps: ``mcpServers`` (Claude, Cursor, Cline, Roo, Windsurf, Gemini),
VS Code ``servers`` / ``mcp.servers``, Zed ``context_servers`` and Goose ``extensions``.

Where each app keeps its servers is in ``_mcp_sources``; how it spells a server, ``_server_dialects``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agent_core.agent.importers._common import (
    AgentImportError,
    ImportedAgent,
    Importer,
    ImportReport,
    read_structured_file,
)
from agent_core.agent.importers._mcp_sources import ServerSource, find_server_source
from agent_core.agent.importers._servers import convert_server
from agent_core.agent.importers._source_root import link_out_problem
from agent_core.agent.variables import input_variable
from agent_core.plugins import Register

__all__ = [
    "detects_mcp_json",
    "import_mcp_json",
    "is_mcp_json",
    "register_importers",
    "servers_from_mcp_json",
]

# Where apps keep the file in a project folder, in the order they are looked for.
_FILES_IN_A_FOLDER = (
    "mcp.json",
    ".mcp.json",
    ".cursor/mcp.json",
    ".vscode/mcp.json",
    "mcp_config.json",
    "gemini-extension.json",
    ".gemini/settings.json",
    ".vscode/settings.json",
    ".zed/settings.json",
)
# ${input:id} (VS Code): asked for when the server starts.
_INPUT = re.compile(r"\$\{input:([^}]+)\}")


def is_mcp_json(data: Any) -> bool:
    """Whether parsed config data holds MCP servers in a shape ContextDesk reads."""
    return find_server_source(data) is not None


def detects_mcp_json(source: Path) -> bool:
    """A folder holding an MCP config file, or a JSON or YAML file with MCP servers in it."""
    if source.is_dir():
        return _file_in(source) is not None
    return _source_in(source) is not None


def _source_in(path: Path) -> ServerSource | None:
    try:
        return find_server_source(read_structured_file(path), path)
    except AgentImportError:
        return None


def _import_detected(source: Path, *, copy_secrets: bool) -> ImportedAgent:
    if source.is_dir():
        found = _file_in(source)
        if found is None:
            for path in (source / name for name in _FILES_IN_A_FOLDER):
                if path.is_file() and (problem := link_out_problem(path)):
                    raise AgentImportError(f"cannot import {path}: {problem}")
            raise AgentImportError(
                f"no MCP config file in {source}: expected one of {', '.join(_FILES_IN_A_FOLDER)}"
            )
        return import_mcp_json(found, copy_secrets=copy_secrets)
    return import_mcp_json(source, copy_secrets=copy_secrets)


def _file_in(folder: Path) -> Path | None:
    return next(
        (
            folder / name
            for name in _FILES_IN_A_FOLDER
            if (folder / name).is_file() and _source_in(folder / name)
        ),
        None,
    )


def register_importers(register: Register[Importer]) -> None:
    """The MCP config importer: Claude Desktop/Code, Cursor, VS Code, Cline, Roo, Windsurf, Gemini, Zed, Goose."""
    register(
        "mcp-json",
        Importer(
            "an MCP config file (mcp.json, .mcp.json, .cursor/mcp.json, .vscode/mcp.json, VS Code or Zed "
            "settings.json, Windsurf mcp_config.json, Gemini settings.json or gemini-extension.json, "
            "Goose config.yaml)",
            detects_mcp_json,
            _import_detected,
            combines=True,
        ),
    )


def import_mcp_json(path: Path, *, copy_secrets: bool = False) -> ImportedAgent:
    """MCP servers from a config file (JSON with comments, or YAML for Goose).

    Raises:
        AgentImportError: the file cannot be parsed or holds no MCP servers.
    """
    data = read_structured_file(path)
    return servers_from_mcp_json(data, source=str(path), copy_secrets=copy_secrets, path=path)


def servers_from_mcp_json(
    data: Any, *, source: str = "JSON", copy_secrets: bool = False, path: Path | None = None
) -> ImportedAgent:
    """The same, from parsed data (the desktop app's "paste an mcpServers block").

    Raises:
        AgentImportError: ``data`` holds no MCP servers in a shape ContextDesk reads.
    """
    found = find_server_source(data, path)
    if found is None:
        raise AgentImportError(
            f'{source} has no "mcpServers" object (nor VS Code\'s "servers" or "mcp.servers", Zed\'s '
            '"context_servers", Goose\'s "extensions"): paste a block like '
            '{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}'
        )
    imported = ImportedAgent(report=ImportReport(found.app))
    for raw_name, block in found.servers.items():
        converted = convert_server(
            str(raw_name),
            block,
            imported.report,
            copy_secrets=copy_secrets,
            dialect=found.dialect,
            folder=found.folder,
        )
        if converted is None:
            continue
        name, out = converted
        imported.mcp_servers[name] = out
        _report_inputs(name, out, found, imported.report)
    return imported


def _report_inputs(server: str, block: dict[str, Any], found: ServerSource, report: ImportReport) -> None:
    """Say how each ``${input:id}`` the server uses gets its value (VS Code asked for it)."""
    used = sorted(set(_INPUT.findall(json.dumps(block))))
    for input_id in used:
        what = found.inputs.get(input_id, input_id)
        report.warnings.append(
            f"MCP server '{server}' uses ${{input:{input_id}}} ({what}): `contextdesk mcp ping AGENT_DIR` asks "
            f"for it the first time and keeps it in the system keyring; without a keyring or a "
            f"terminal, set the environment variable {input_variable(input_id)}"
        )
