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
    read_structured_file,
    secret_value,
)
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

_LEGACY_FILE = "tsagent.json"
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


def is_tsagent_yaml(data: Any) -> bool:
    return isinstance(data, Mapping) and isinstance(data.get("metadata"), Mapping)


def detects_tsagent(source: Path) -> bool:
    """A legacy folder (tsagent.json), a folder with tsagent.yaml, or a file with a 'metadata' section."""
    if source.is_dir():
        return any((source / name).is_file() for name in (_LEGACY_FILE, *_YAML_FILES))
    if source.name == _LEGACY_FILE:
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
        if (source / _LEGACY_FILE).is_file():
            return import_tsagent_legacy(source, copy_secrets=copy_secrets)
        yaml_file = next(source / name for name in _YAML_FILES if (source / name).is_file())
        return import_tsagent_yaml(yaml_file, copy_secrets=copy_secrets)
    if source.name == _LEGACY_FILE:
        return import_tsagent_legacy(source.parent, copy_secrets=copy_secrets)
    return import_tsagent_yaml(source, copy_secrets=copy_secrets)


def register_importers(register: Register[Importer]) -> None:
    """The TsAgent importer: a single-file YAML agent or a legacy tsagent.json folder."""
    register(
        "tsagent",
        Importer(
            "a TsAgent agent (tsagent.json, or a .yaml file with 'metadata')", detects_tsagent, import_tsagent
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
                imported.report.skipped.append(f"{kind} '{entry['name']}': {', '.join(extra)}")
        if embeddings:
            imported.report.skipped.append(
                f"stored embeddings of {embeddings} {key} (ContextDesk keeps them in its cache, never in agent files)"
            )
    return imported


def import_tsagent_legacy(folder: Path, *, copy_secrets: bool = False) -> ImportedAgent:
    """Read the legacy TsAgent folder: tsagent.json, prompt.md, rules/*.mdt and refs/*.mdt.

    Raises:
        AgentImportError: the folder has no readable tsagent.json.
    """
    config_path = folder / "tsagent.json"
    try:
        data = json.loads(read_import_text(config_path))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise AgentImportError(
            f"cannot read {config_path} ({error}): check that it is a TsAgent agent folder"
        ) from error
    if not isinstance(data, Mapping):
        raise AgentImportError(f"{config_path} is not a JSON object, so it is not a TsAgent agent")
    imported = ImportedAgent(report=ImportReport("TsAgent legacy folder (tsagent.json + .mdt)"))
    _map_config(data, imported, copy_secrets)
    prompt = folder / "prompt.md"
    if prompt.is_file():
        imported.system_prompt = read_import_text(prompt)
    elif isinstance(data.get("systemPrompt"), str):
        imported.system_prompt = data["systemPrompt"]
    for kind, sub in (("rule", "rules"), ("reference", "refs")):
        for file in sorted((folder / sub).glob("*.mdt")):
            header, body = _split_json_header(file, imported.report)
            if header is None:
                continue
            header.setdefault("name", file.stem)
            _add_item(imported, kind, header, body)
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


def _split_json_header(file: Path, report: ImportReport) -> tuple[dict[str, Any] | None, str]:
    try:
        text = read_import_text(file).replace("\r\n", "\n")
    except AgentImportError as error:
        report.skipped.append(f"{file.name}: {error}")
        return None, ""
    if not text.startswith("---\n"):
        report.skipped.append(f"{file.name}: no '---' header")
        return None, ""
    end = text.find("\n---", 4)
    if end < 0:
        report.skipped.append(f"{file.name}: the '---' header is never closed")
        return None, ""
    try:
        header = json.loads(text[4:end])
    except json.JSONDecodeError as error:
        report.skipped.append(
            f"{file.name}: the header is not valid JSON ({error.msg}, line {error.lineno + 1})"
        )
        return None, ""
    if not isinstance(header, dict):
        report.skipped.append(f"{file.name}: the header is not a JSON object")
        return None, ""
    body = text[end + 4 :].removeprefix("\n")
    return header, body


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
            report.skipped.append(f"metadata: {', '.join(dropped)}")
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
                extra_known=frozenset({"serverToolDefaults", "tools"}),
            )
            if converted is None:
                continue
            name, out = converted
            defaults = tool_settings(
                block.get("serverToolDefaults"), report, f"MCP server '{name}' serverToolDefaults"
            )
            if defaults:
                out["toolDefaults"] = defaults
            tools = block.get("tools")
            if isinstance(tools, Mapping):
                mapped = {str(t): tool_settings(v, report, f"tool '{name}.{t}'") for t, v in tools.items()}
                if mapped := {t: v for t, v in mapped.items() if v}:
                    out["tools"] = mapped
            imported.mcp_servers[name] = out


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
            report.skipped.append(f"settings.{key}")


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
        report.skipped.append(f"provider '{provider_id}' (not available in ContextDesk)")
        return
    target_id, kind, keys = mapping
    block: dict[str, Any] = {"type": kind} if kind else {}
    if isinstance(values, Mapping):
        for key, value in values.items():
            field = keys.get(str(key))
            if field is None:
                report.skipped.append(f"provider '{provider_id}': {key}")
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
