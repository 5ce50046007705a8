"""TsAgent agents: the single ``.yaml`` file, and the legacy ``tsagent.json`` + ``*.mdt`` folder."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from agent_core.agent.importers._common import (
    AgentImportError,
    ImportedAgent,
    Importer,
    ImportReport,
    read_import_text,
    read_rule_text,
    read_structured_file,
    secret_value,
    too_deeply_nested,
)
from agent_core.agent.importers._mdt import MdtError, split_mdt
from agent_core.agent.importers._servers import convert_server, tool_settings
from agent_core.agent.schema import IncludeMode
from agent_core.plugins import Register

__all__ = [
    "detects_tsagent",
    "import_tsagent",
    "import_tsagent_legacy",
    "import_tsagent_yaml",
    "is_tsagent_yaml",
    "register_importers",
]

# TsAgent was called TsPark until late 2025; its legacy agents are named after either.
_LEGACY_FILES = ("tsagent.json", "tspark.json")
_YAML_FILES = ("tsagent.yaml", "tsagent.yml")

# TsAgent provider id -> (ContextDesk provider id, type or None, {source key: target field}).
_PROVIDERS: dict[str, tuple[str, str | None, dict[str, str]]] = {
    "openai": ("openai", None, {"OPENAI_API_KEY": "apiKey", "OPENAI_BASE_URL": "baseUrl"}),
    "claude": ("anthropic", None, {"ANTHROPIC_API_KEY": "apiKey", "ANTHROPIC_BASE_URL": "baseUrl"}),
    "anthropic": ("anthropic", None, {"ANTHROPIC_API_KEY": "apiKey", "ANTHROPIC_BASE_URL": "baseUrl"}),
    "gemini": ("gemini", None, {"GOOGLE_API_KEY": "apiKey", "GEMINI_API_KEY": "apiKey"}),
    "ollama": ("ollama", "openai-compatible", {"OLLAMA_HOST": "baseUrl"}),
    "local": ("local", None, {}),
}
_MODEL_PROVIDERS = {
    "claude": "anthropic",
    "anthropic": "anthropic",
    "openai": "openai",
    "gemini": "gemini",
    "ollama": "ollama",
    "local": "local",
}
_TOOL_PERMISSION = {"always": "ask", "never": "allow", "tool": "tool"}
_SETTINGS_NUMERIC = {
    "maxChatTurns": ("chat", "max_chat_turns", int),
    "maxOutputTokens": ("chat", "max_output_tokens", int),
    "temperature": ("chat", "temperature", float),
    "topP": ("chat", "top_p", float),
    "contextTopK": ("selection", "top_k", int),
    "contextTopN": ("selection", "top_n", int),
    "contextIncludeScore": ("selection", "include_score", float),
}
_INCLUDES = {mode.value for mode in IncludeMode}
# TsAgent's older per-server tool keys -> the ContextDesk tool setting each maps onto.
# toolEnabled (the oldest) comes first so that toolInclude, which replaced it, wins when both are set.
_LEGACY_TOOL_KEYS = {
    "toolEnabled": "include",
    "toolInclude": "include",
    "toolPermissionRequired": "permissionRequired",
}
_NO_COUNTERPART = "no counterpart in ContextDesk, left out (nothing to do)"


def is_tsagent_yaml(data: Any) -> bool:
    return isinstance(data, Mapping) and isinstance(data.get("metadata"), Mapping)


def detects_tsagent(source: Path) -> bool:
    """A legacy folder (tsagent.json), a folder with tsagent.yaml, or a file with a 'metadata' section."""
    if source.is_dir():
        return any((source / name).is_file() for name in (*_LEGACY_FILES, *_YAML_FILES))
    if source.name in _LEGACY_FILES:
        return True
    try:
        return is_tsagent_yaml(read_structured_file(source))
    except AgentImportError:
        return False


def import_tsagent(source: Path, *, copy_secrets: bool = False) -> ImportedAgent:
    """Read whichever TsAgent form ``source`` is (see :func:`detects_tsagent`).

    Raises:
        AgentImportError: ``source`` is not a readable TsAgent agent.
    """
    if source.is_dir():
        if legacy := next((source / n for n in _LEGACY_FILES if (source / n).is_file()), None):
            return import_tsagent_legacy(legacy, copy_secrets=copy_secrets)
        yaml_file = next(source / name for name in _YAML_FILES if (source / name).is_file())
        return import_tsagent_yaml(yaml_file, copy_secrets=copy_secrets)
    if source.name in _LEGACY_FILES:  # the file stands for its folder: prompt.md, rules/, refs/
        return import_tsagent_legacy(source, copy_secrets=copy_secrets)
    return import_tsagent_yaml(source, copy_secrets=copy_secrets)


def register_importers(register: Register[Importer]) -> None:
    """The TsAgent importer: a single-file YAML agent or a legacy tsagent.json folder."""
    register(
        "tsagent",
        Importer(
            "a TsAgent agent (tsagent.json or tspark.json, or a .yaml file with 'metadata')",
            detects_tsagent,
            import_tsagent,
        ),
    )


def import_tsagent_yaml(path: Path, *, copy_secrets: bool = False) -> ImportedAgent:
    """Read TsAgent's single-file YAML agent.

    Raises:
        AgentImportError: the file is not a TsAgent YAML agent.
    """
    try:
        data = yaml.safe_load(read_import_text(path))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise AgentImportError(
            f"cannot read {path} as YAML ({error}): check that it is a TsAgent agent file"
        ) from error
    if not is_tsagent_yaml(data):
        raise AgentImportError(f"{path} has no 'metadata' section, so it is not a TsAgent agent file")
    imported = ImportedAgent(report=ImportReport("TsAgent agent (.yaml)"))
    _map_config(data, imported, copy_secrets)
    if isinstance(data.get("systemPrompt"), str):
        imported.system_prompt = data["systemPrompt"]
    for kind, key in (("rule", "rules"), ("reference", "references")):
        entries = data.get(key) or []
        if not isinstance(entries, list):
            imported.report.warnings.append(f"'{key}' is not a list; none imported")
            continue
        embeddings = 0
        for index, entry in enumerate(entries):
            if not isinstance(entry, Mapping) or not entry.get("name"):
                imported.report.skipped.append(f"{key}[{index}]: no name")
                continue
            embeddings += bool(entry.get("embeddings"))
            _add_item(imported, kind, entry, str(entry.get("text") or ""))
            extra = sorted(
                set(entry)
                - {"name", "description", "priorityLevel", "text", "include", "enabled", "embeddings"}
            )
            if extra:
                imported.report.skipped.append(
                    f"{kind} '{entry['name']}': {', '.join(extra)}: {_NO_COUNTERPART}"
                )
        if embeddings:
            imported.report.skipped.append(
                f"stored embeddings of {embeddings} {key} (ContextDesk keeps them in its cache, never in agent files)"
            )
    return imported


def import_tsagent_legacy(config_path: Path, *, copy_secrets: bool = False) -> ImportedAgent:
    """Read a legacy TsAgent folder from its ``tsagent.json`` (or ``tspark.json``): that file,
    ``prompt.md``, ``rules/*.mdt`` and ``refs/*.mdt`` beside it.

    Raises:
        AgentImportError: ``config_path`` is not readable JSON.
    """
    folder = config_path.parent
    try:
        data = json.loads(read_import_text(config_path).removeprefix("\ufeff"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise AgentImportError(
            f"cannot read {config_path} ({error}): check that it is a TsAgent agent folder"
        ) from error
    except RecursionError:
        raise AgentImportError(too_deeply_nested(config_path)) from None
    if not isinstance(data, Mapping):
        raise AgentImportError(f"{config_path} is not a JSON object, so it is not a TsAgent agent")
    imported = ImportedAgent(report=ImportReport(f"TsAgent legacy folder ({config_path.name} + .mdt)"))
    _map_config(data, imported, copy_secrets)
    prompt = folder / "prompt.md"
    if prompt.is_file():
        try:
            imported.system_prompt = read_rule_text(prompt)
        except AgentImportError as error:
            imported.report.skipped.append(f"prompt.md: {error}")
    elif isinstance(data.get("systemPrompt"), str):
        imported.system_prompt = data["systemPrompt"]
    for kind, sub in (("rule", "rules"), ("reference", "refs")):
        for file in sorted((folder / sub).glob("*.mdt")):
            try:
                mdt = split_mdt(read_rule_text(file))
            except (AgentImportError, MdtError) as error:
                imported.report.skipped.append(f"{sub}/{file.name}: {error}")
                continue
            header = {**mdt.header, "name": mdt.header.get("name") or file.stem}
            _add_item(imported, kind, header, mdt.body)
    return imported


def _add_item(imported: ImportedAgent, kind: str, entry: Mapping[str, Any], text: str) -> None:
    include = entry.get("include")
    if include not in _INCLUDES:
        if include is not None:
            imported.report.warnings.append(
                f"{kind} '{entry['name']}': include {include!r} unknown; manual used"
            )
        # Before include modes, TsAgent had only enabled (added to every chat) or not.
        include = "always" if entry.get("enabled", False) is True and include is None else "manual"
    imported.add_document(
        "rule" if kind == "rule" else "reference",
        str(entry["name"]),
        description=str(entry.get("description") or ""),
        priority_level=entry.get("priorityLevel", 500),
        include=IncludeMode(include),
        text=text,
    )


def _map_config(data: Mapping[str, Any], imported: ImportedAgent, copy_secrets: bool) -> None:
    report = imported.report
    metadata = data.get("metadata") or {}
    if isinstance(metadata, Mapping):
        if metadata.get("name"):
            imported.name = str(metadata["name"])
        if metadata.get("description"):
            imported.description = str(metadata["description"])
        dropped = sorted(set(metadata) - {"name", "description"})
        if dropped:
            report.skipped.append(f"metadata: {', '.join(dropped)}: {_NO_COUNTERPART}")
    settings = data.get("settings") or {}
    if isinstance(settings, Mapping):
        _map_settings(settings, imported)
    providers = data.get("providers") or {}
    if isinstance(providers, Mapping):
        for provider_id, values in providers.items():
            _map_provider(str(provider_id), values, imported, copy_secrets)
    servers = data.get("mcpServers") or {}
    if isinstance(servers, Mapping):
        for raw_name, block in servers.items():
            converted = convert_server(
                str(raw_name),
                block,
                report,
                copy_secrets=copy_secrets,
                extra_known=frozenset({"serverToolDefaults", "tools", *_LEGACY_TOOL_KEYS}),
            )
            if converted is None:
                continue
            name, out = converted
            defaults, tools = _legacy_tool_settings(block, name, report)
            defaults.update(
                tool_settings(
                    block.get("serverToolDefaults"), report, f"MCP server '{name}' serverToolDefaults"
                )
            )
            if isinstance(block.get("tools"), Mapping):
                for tool, raw in block["tools"].items():
                    tools.setdefault(str(tool), {}).update(
                        tool_settings(raw, report, f"tool '{name}.{tool}'")
                    )
            if defaults:
                out["toolDefaults"] = defaults
            if tools := {tool: settings for tool, settings in tools.items() if settings}:
                out["tools"] = tools
            imported.mcp_servers[name] = out


def _legacy_tool_settings(
    block: Mapping[str, Any], server: str, report: ImportReport
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Tool defaults and per-tool settings from TsAgent's older keys, each shaped
    ``{serverDefault: value, tools: {tool: value}}``: ``toolInclude`` (an include mode),
    ``toolPermissionRequired`` (true/false) and the oldest, ``toolEnabled`` (true/false)."""
    defaults: dict[str, Any] = {}
    tools: dict[str, dict[str, Any]] = {}
    for key, field in _LEGACY_TOOL_KEYS.items():
        raw = block.get(key)
        if raw is None:
            continue
        if not isinstance(raw, Mapping):
            report.warnings.append(
                f"MCP server '{server}': {key} is not {{serverDefault, tools}}; the tool defaults are used"
            )
            continue
        values = {"": raw.get("serverDefault")}
        if isinstance(raw.get("tools"), Mapping):
            values.update({str(tool): value for tool, value in raw["tools"].items()})
        for tool, value in values.items():
            where = f"MCP server '{server}' {key}" + (f" for '{tool}'" if tool else " serverDefault")
            setting = _legacy_tool_value(key, value, report, where)
            if setting is not None:
                (defaults if not tool else tools.setdefault(tool, {}))[field] = setting
    return defaults, tools


def _legacy_tool_value(key: str, value: Any, report: ImportReport, where: str) -> Any:
    if value is None:
        return None
    if key == "toolInclude":
        if value in _INCLUDES:
            return value
        report.warnings.append(f"{where}: {value!r} is not always, manual or agent; the default is used")
        return None
    if isinstance(value, str) and value.lower() in ("true", "false"):
        value = value.lower() == "true"
    if not isinstance(value, bool):
        report.warnings.append(f"{where}: {value!r} is not true or false; the default is used")
        return None
    if key == "toolEnabled":
        # ContextDesk has no "disabled tool": manual keeps it out of chats until the user adds it.
        return "always" if value else "manual"
    return value


def _map_settings(settings: Mapping[str, Any], imported: ImportedAgent) -> None:
    report = imported.report
    for key, value in settings.items():
        if key in _SETTINGS_NUMERIC:
            section, field, cast = _SETTINGS_NUMERIC[key]
            try:
                number = cast(float(value)) if cast is int else cast(value)
            except (TypeError, ValueError):
                report.warnings.append(f"settings.{key}: {value!r} is not a number; the default is used")
                continue
            (imported.chat if section == "chat" else imported.selection)[field] = number
        elif key in ("model", "mostRecentModel"):
            model = _map_model(str(value), report)
            if model and (key == "model" or "model" not in imported.chat):
                imported.chat["model"] = model
        elif key == "toolPermission":
            if value in _TOOL_PERMISSION:
                imported.chat["tool_permission"] = _TOOL_PERMISSION[value]
            else:  # fail closed: an unknown permission setting asks before every tool call
                imported.chat["tool_permission"] = "ask"
                report.warnings.append(
                    f"settings.toolPermission: {value!r} unknown; 'ask' (approve every tool call) used"
                )
        else:
            report.skipped.append(f"settings.{key}: {_NO_COUNTERPART}")


def _map_model(value: str, report: ImportReport) -> str | None:
    provider, _, model = value.partition(":")
    target = _MODEL_PROVIDERS.get(provider.lower())
    if not model or target is None:
        report.skipped.append(f"model '{value}' (provider '{provider}' is not available in ContextDesk)")
        return None
    return f"{target}:{model}"


def _map_provider(provider_id: str, values: Any, imported: ImportedAgent, copy_secrets: bool) -> None:
    report = imported.report
    mapping = _PROVIDERS.get(provider_id.lower())
    if mapping is None:
        report.skipped.append(
            f"provider '{provider_id}': not available in ContextDesk; add a provider in agent.yaml "
            "(openai-compatible if it speaks the OpenAI API)"
        )
        return
    target_id, kind, keys = mapping
    block: dict[str, Any] = {"type": kind} if kind else {}
    if isinstance(values, Mapping):
        for key, value in values.items():
            field = keys.get(str(key))
            if field is None:
                report.skipped.append(f"provider '{provider_id}': {key}: {_NO_COUNTERPART}")
            elif field == "apiKey":
                block["apiKey"] = secret_value(
                    value, str(key), report, f"provider '{target_id}' {key}", copy_secrets
                )
            elif field == "baseUrl":
                url = str(value).rstrip("/")
                if target_id == "ollama" and not url.endswith("/v1"):
                    url += "/v1"  # Ollama speaks the OpenAI API under /v1
                block["baseUrl"] = url
    if target_id == "ollama":
        block.setdefault("baseUrl", "http://localhost:11434/v1")
    imported.providers[target_id] = block
    report.created.append(f"provider '{target_id}'")
