"""Importing existing setups: TsAgent agents, Cursor rules, Claude Code sub-agents and
``mcpServers`` JSON files.

Each format is an :class:`Importer` in the ``importers`` plug-in registry (entry-point group
``contextdesk.importers``): a plug-in exposes ``register_importers(register)`` and calls
``register("my-format", Importer(expected, detects, read))``, as the built-in formats do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from agent_core.agent.agent import AGENT_FILE, Agent
from agent_core.agent.importers._common import (
    AgentImportError,
    ImportedAgent,
    Importer,
    ImportReport,
    ReadImport,
    read_structured_file,
)
from agent_core.agent.importers.mcp_json import servers_from_mcp_json
from agent_core.agent.loader import load_agent
from agent_core.agent.schema import (
    AgentConfig,
    ChatDefaults,
    McpServerConfig,
    ProviderConfig,
    SelectionConfig,
)
from agent_core.agent.writer import check_agent_file_saveable, document_path, save_agent_config, save_document
from agent_core.atomic import atomic_write_text
from agent_core.plugins import PluginRegistry
from agent_core.subagents.loader import SUBAGENTS_FOLDER
from agent_core.workflows.loader import WORKFLOWS_FOLDER

__all__ = [
    "IMPORTERS",
    "AgentImportError",
    "ImportReport",
    "ImportedAgent",
    "Importer",
    "ReadImport",
    "apply_import",
    "import_source",
    "read_source",
    "servers_from_mcp_json",
]

IMPORTERS: PluginRegistry[Importer] = PluginRegistry(
    "importers",
    noun="importer",
    builtins=(
        "agent_core.agent.importers.tsagent:register_importers",
        "agent_core.agent.importers.cursor:register_importers",
        "agent_core.agent.importers.claude_agents:register_importers",
        "agent_core.agent.importers.codemie_workflow:register_importers",
        "agent_core.agent.importers.mcp_json:register_importers",
    ),
)

ModelT = TypeVar("ModelT", bound=BaseModel)
_SERVER_ADAPTER: TypeAdapter[McpServerConfig] = TypeAdapter(McpServerConfig)


def read_source(source: Path, *, copy_secrets: bool = False) -> ImportedAgent:
    """Read ``source`` with the first registered importer that detects it.

    Raises:
        AgentImportError: no importer recognises the source, or it cannot be read.
    """
    source = source.expanduser()
    if not source.exists():
        raise AgentImportError(f"{source} does not exist: check the path")
    if not source.is_dir() and not source.is_file():
        raise AgentImportError(
            f"{source} is not an ordinary file or folder (a named pipe or a device): import a file or a folder"
        )
    importers = [importer for _, importer in IMPORTERS.plugins()]
    for importer in importers:
        if importer.detects(source):
            return importer.read(source, copy_secrets=copy_secrets)
    expected = _one_of([importer.expected for importer in importers])
    if source.is_dir():
        raise AgentImportError(f"nothing to import in {source}: expected {expected}")
    read_structured_file(source)  # a file that cannot even be parsed: say so rather than "not a format"
    raise AgentImportError(f"{source} is not a format ContextDesk imports: expected {expected}")


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
    for name, text in imported.subagent_files.items():
        path = agent.root / SUBAGENTS_FOLDER / f"{name}.md"
        if path.exists() and not overwrite:
            report.skipped.append(f"sub-agent '{name}': already in the agent (use --overwrite)")
            continue
        path.parent.mkdir(exist_ok=True)
        atomic_write_text(path, text)
        report.created.append(f"sub-agent '{name}'")
    for name, text in imported.workflow_files.items():
        path = agent.root / WORKFLOWS_FOLDER / f"{name}.yaml"
        if path.exists() and not overwrite:
            report.skipped.append(f"workflow '{name}': already in the agent (use --overwrite)")
            continue
        path.parent.mkdir(exist_ok=True)
        atomic_write_text(path, text)
        report.created.append(f"workflow '{name}'")
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


def _one_of(choices: list[str]) -> str:
    if not choices:
        return "a format of an importer plug-in, but none is installed (see the log)"
    return choices[0] if len(choices) == 1 else f"{', '.join(choices[:-1])} or {choices[-1]}"
