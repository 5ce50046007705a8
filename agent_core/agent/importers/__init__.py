"""Importing existing setups: TsAgent agents, Cursor rules and ``mcpServers`` JSON files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, TypeAdapter, ValidationError

from agent_core.agent.agent import AGENT_FILE, Agent
from agent_core.agent.importers._common import ImportedAgent, ImportError_, ImportReport
from agent_core.agent.importers.cursor import find_cursor_rules, import_cursor_rules
from agent_core.agent.importers.mcp_json import import_mcp_json, is_mcp_json, servers_from_mcp_json
from agent_core.agent.importers.tsagent import import_tsagent_legacy, import_tsagent_yaml, is_tsagent_yaml
from agent_core.agent.loader import load_agent
from agent_core.agent.schema import (
    AgentConfig,
    ChatDefaults,
    McpServerConfig,
    ProviderConfig,
    SelectionConfig,
)
from agent_core.agent.writer import check_agent_file_saveable, document_path, save_agent_config, save_document

__all__ = [
    "ImportError_",
    "ImportReport",
    "ImportedAgent",
    "apply_import",
    "import_source",
    "read_source",
    "servers_from_mcp_json",
]

ModelT = TypeVar("ModelT", bound=BaseModel)
_SERVER_ADAPTER: TypeAdapter[McpServerConfig] = TypeAdapter(McpServerConfig)


def read_source(source: Path, *, copy_secrets: bool = False) -> ImportedAgent:
    """Recognise ``source`` and read it.

    Raises:
        ImportError_: the format is not recognised or the source cannot be read.
    """
    source = source.expanduser()
    if source.is_dir():
        if (source / "tsagent.json").is_file():
            return import_tsagent_legacy(source, copy_secrets=copy_secrets)
        for name in ("tsagent.yaml", "tsagent.yml"):
            if (source / name).is_file():
                return import_tsagent_yaml(source / name, copy_secrets=copy_secrets)
        if find_cursor_rules(source) is not None or (source / ".cursorrules").is_file():
            return import_cursor_rules(source)
        for name in ("mcp.json", ".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json"):
            if (source / name).is_file():
                return import_mcp_json(source / name, copy_secrets=copy_secrets)
        raise ImportError_(
            f"nothing to import in {source}: expected a TsAgent agent (tsagent.json or a .yaml file), "
            "Cursor rules (.cursor/rules/*.mdc) or an mcpServers JSON file"
        )
    if not source.is_file():
        raise ImportError_(f"{source} does not exist: check the path")
    if source.name == "tsagent.json":
        return import_tsagent_legacy(source.parent, copy_secrets=copy_secrets)
    if source.suffix == ".mdc":
        return import_cursor_rules(source.parent)
    try:
        text = source.read_text(encoding="utf-8")
        data: Any = json.loads(text) if source.suffix == ".json" else yaml.safe_load(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, yaml.YAMLError) as error:
        raise ImportError_(f"cannot read {source} ({error}): check the file") from error
    if is_tsagent_yaml(data):
        return import_tsagent_yaml(source, copy_secrets=copy_secrets)
    if is_mcp_json(data):
        return servers_from_mcp_json(data, source=str(source), copy_secrets=copy_secrets)
    raise ImportError_(
        f"{source} is not a format ContextDesk imports: expected a TsAgent agent file (with 'metadata') "
        "or a JSON file with an 'mcpServers' object"
    )


def import_source(
    source: Path, target: Path, *, overwrite: bool = False, copy_secrets: bool = False
) -> ImportReport:
    """Read ``source`` and write it into the agent at ``target`` (created when missing)."""
    return apply_import(read_source(source, copy_secrets=copy_secrets), target, overwrite=overwrite)


def apply_import(imported: ImportedAgent, target: Path, *, overwrite: bool = False) -> ImportReport:
    """Write an import into an agent folder; existing entries are kept unless ``overwrite``.

    Raises:
        AtomicWriteError: a file could not be written (files already written stay valid).
    """
    report = imported.report
    target = target.expanduser()
    is_new = not (target / AGENT_FILE).is_file()
    if is_new:
        target.mkdir(parents=True, exist_ok=True)
        agent = Agent(root=target.resolve(), config=AgentConfig(name=imported.name or target.name))
    else:
        agent = load_agent(target)
        check_agent_file_saveable(agent.root)  # refuse before any rule or reference is written
    replace = is_new or overwrite
    config = agent.config
    if imported.name and replace:
        config.name = imported.name
    if imported.description is not None and (replace or not config.description):
        config.description = imported.description
    if imported.system_prompt is not None and (replace or not config.system_prompt):
        config.system_prompt = imported.system_prompt
    if imported.chat and replace:
        config.chat = _merge(ChatDefaults, config.chat, imported.chat, report, "chat")
    if imported.selection and replace:
        config.selection = _merge(SelectionConfig, config.selection, imported.selection, report, "selection")

    providers = dict(config.providers)
    for provider_id, block in imported.providers.items():
        if provider_id in providers and not overwrite:
            report.skipped.append(f"provider '{provider_id}': the agent already has one (use --overwrite)")
            continue
        try:
            providers[provider_id] = ProviderConfig.model_validate(block)
        except ValidationError as error:
            report.warnings.append(f"provider '{provider_id}' kept as written but invalid: {_first(error)}")
            agent.unparsed_providers[provider_id] = block
    if imported.providers:
        config.providers = providers

    servers = dict(config.mcp_servers)
    for name, block in imported.mcp_servers.items():
        if name in servers and not overwrite:
            report.skipped.append(f"MCP server '{name}': the agent already has one (use --overwrite)")
            continue
        try:
            servers[name] = _SERVER_ADAPTER.validate_python(block)
        except ValidationError as error:
            report.warnings.append(f"MCP server '{name}' kept as written but invalid: {_first(error)}")
            agent.unparsed_servers[name] = block
    if imported.mcp_servers:
        config.mcp_servers = servers

    for document in imported.documents:
        if document_path(agent.root, document.kind, document.name).exists() and not overwrite:
            report.skipped.append(
                f"{document.kind} '{document.name}': already in the agent (use --overwrite)"
            )
            continue
        save_document(agent.root, document)
        report.created.append(f"{document.kind} '{document.name}' ({document.include.value})")
    save_agent_config(agent)
    return report


def _merge(
    model: type[ModelT], current: ModelT, updates: dict[str, Any], report: ImportReport, section: str
) -> ModelT:
    values = {**current.model_dump(exclude_unset=True), **updates}
    while True:
        try:
            return model.model_validate(values)
        except ValidationError as error:
            bad = {str(item["loc"][0]) for item in error.errors() if item["loc"]}
            if not bad & set(values):
                return current
            for key in bad & set(values):
                report.warnings.append(
                    f"{section}.{key}: {values.pop(key)!r} is out of range; the default is used"
                )


def _first(error: ValidationError) -> str:
    item = error.errors()[0]
    return f"{'.'.join(map(str, item['loc']))}: {item['msg']}"
