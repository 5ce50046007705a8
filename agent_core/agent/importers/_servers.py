"""MCP server blocks from other apps, turned into ContextDesk's ``mcpServers`` entries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_core.agent.importers._arg_secrets import secret_args, secret_url
from agent_core.agent.importers._common import ImportReport, env_variable_for, safe_item_name
from agent_core.agent.importers._mcp_sources import Dialect
from agent_core.agent.importers._protect import protect_value
from agent_core.agent.importers._server_dialects import DialectProblem, common_block
from agent_core.agent.importers._tool_lists import TOOL_LIST_KEYS, map_tool_lists

__all__ = ["convert_server"]

_TRANSPORT_ALIASES = {
    "stdio": "stdio",
    "sse": "sse",
    "http": "streamable-http",
    "streamable-http": "streamable-http",
    "streamableHttp": "streamable-http",
    "streamable_http": "streamable-http",
    "internal": "internal",
}
_KNOWN = {"type", "transport", "command", "args", "env", "cwd", "url", "headers", "disabled", "timeout"}
_MAX_CALL_SECONDS = 3600  # McpServerConfig.callTimeoutSeconds' upper bound
_INCLUDE_VALUES = {"always", "manual", "agent"}


def convert_server(
    raw_name: str,
    block: Any,
    report: ImportReport,
    *,
    copy_secrets: bool,
    extra_known: frozenset[str] = frozenset(),
    dialect: Dialect = "generic",
    folder: str | None = None,
) -> tuple[str, dict[str, Any]] | None:
    """(name, block) for agent.yaml, or None when the block cannot describe a server.

    ``block`` is written the way ``dialect``'s app writes it (``_server_dialects``); ``folder`` is
    where its file is, for names relative to it.
    """
    name = safe_item_name(raw_name, report, "MCP server")
    if not isinstance(block, Mapping):
        report.skipped.append(f"MCP server '{raw_name}': not a mapping of settings")
        return None
    try:
        block = common_block(block, dialect, folder)
    except DialectProblem as problem:
        report.skipped.append(f"MCP server '{raw_name}': {problem}")
        return None
    kind = block.get("type") or block.get("transport")
    if kind is None:
        kind = "stdio" if "command" in block else "streamable-http" if "url" in block else None
        if kind == "streamable-http" and str(block["url"]).rstrip("/").endswith("/sse"):
            kind = "sse"
    if kind is None:
        report.skipped.append(
            f"MCP server '{raw_name}': no command (for a local server) and no url (for a remote one)"
        )
        return None
    transport = _TRANSPORT_ALIASES.get(str(kind))
    if transport is None:
        report.skipped.append(
            f"MCP server '{raw_name}': unknown transport {kind!r} (expected stdio, sse or streamable-http)"
        )
        return None
    out: dict[str, Any] = {"type": transport}
    if transport == "stdio":
        if not block.get("command"):
            report.skipped.append(f"MCP server '{raw_name}': stdio server without a command")
            return None
        out["command"] = str(block["command"])
        if block.get("args"):
            out["args"] = secret_args(
                name, [str(arg) for arg in block["args"]], report, copy_secrets=copy_secrets
            )
        if block.get("env"):
            out["env"] = _secret_map(block["env"], name, "env", report, copy_secrets)
        if block.get("cwd"):
            out["cwd"] = str(block["cwd"])
    elif transport == "internal":
        return _internal(raw_name, name, block, report)
    else:
        if not block.get("url"):
            report.skipped.append(f"MCP server '{raw_name}': {transport} server without a url")
            return None
        out["url"] = secret_url(name, str(block["url"]), report, copy_secrets=copy_secrets)
        if block.get("headers"):
            out["headers"] = _secret_map(block["headers"], name, "header", report, copy_secrets)
    if block.get("disabled") is True:
        out["enabled"] = False
    if "timeout" in block:
        _map_timeout(block["timeout"], out, report, name)
    map_tool_lists(block, out, report, name)
    for key in block:
        if key not in _KNOWN and key not in extra_known and key not in TOOL_LIST_KEYS:
            report.skipped.append(f"MCP server '{raw_name}': '{key}' has no meaning in ContextDesk")
    report.created.append(f"MCP server '{name}' ({transport})")
    return name, out


def _map_timeout(value: Any, out: dict[str, Any], report: ImportReport, server: str) -> None:
    """Cline's and Roo's ``timeout`` (seconds) as ``callTimeoutSeconds``, which allows 1 s to 1 h."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        report.skipped.append(f"MCP server '{server}': timeout {value!r} is not a number of seconds")
        return
    seconds = float(value)
    if seconds > _MAX_CALL_SECONDS:  # an hour is the most Cline and Roo allow: this is milliseconds
        seconds /= 1000
        report.warnings.append(f"MCP server '{server}': timeout {value} read as milliseconds ({seconds:g} s)")
    if seconds > _MAX_CALL_SECONDS:
        report.warnings.append(
            f"MCP server '{server}': timeout {seconds:g} s is more than ContextDesk allows; "
            f"callTimeoutSeconds is {_MAX_CALL_SECONDS}"
        )
        seconds = _MAX_CALL_SECONDS
    out["callTimeoutSeconds"] = int(seconds) if seconds.is_integer() else seconds


def tool_settings(raw: Any, report: ImportReport, where: str) -> dict[str, Any]:
    """TsAgent-style ``{include, permissionRequired}``, validated; stored embeddings dropped."""
    if not isinstance(raw, Mapping):
        return {}
    out: dict[str, Any] = {}
    include = raw.get("include")
    if include in _INCLUDE_VALUES:
        out["include"] = include
    elif include is not None:
        report.warnings.append(
            f"{where}: include {include!r} is not always/manual/agent; the default is used"
        )
    permission = raw.get("permissionRequired")
    if isinstance(permission, bool):
        out["permissionRequired"] = permission
    elif isinstance(permission, str) and permission.lower() in ("true", "false"):
        out["permissionRequired"] = permission.lower() == "true"
    dropped = sorted(set(raw) - {"include", "permissionRequired"})
    if dropped:
        report.skipped.append(
            f"{where}: {', '.join(dropped)} (stored embeddings and hashes are rebuilt here)"
        )
    return out


def _secret_map(
    values: Any, server: str, what: str, report: ImportReport, copy_secrets: bool
) -> dict[str, str]:
    if not isinstance(values, Mapping):
        report.warnings.append(f"MCP server '{server}': {what} values are not a mapping; left out")
        return {}
    out: dict[str, str] = {}
    for key, value in values.items():
        variable = str(key) if what == "env" else env_variable_for(server, str(key))
        where = f"MCP server '{server}' {what} {key}"
        out[str(key)] = protect_value(
            str(key), str(value), variable, report, where=where, server=server, copy_secrets=copy_secrets
        )
    return out


def _internal(
    raw_name: str, name: str, block: Mapping[str, Any], report: ImportReport
) -> tuple[str, dict[str, Any]] | None:
    tool = block.get("tool")
    if tool == "references":
        report.created.append(f"MCP server '{name}' (built-in references server)")
        return name, {"type": "internal", "tool": "references"}
    report.skipped.append(
        f"MCP server '{raw_name}': TsAgent's internal '{tool}' server has no ContextDesk counterpart"
    )
    return None
