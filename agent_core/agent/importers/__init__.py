"""Importing existing setups: TsAgent agents, Cursor rules, Claude Code sub-agents, ``mcpServers``
JSON files, Agent Skills and the instruction files of a project (AGENTS.md, CLAUDE.md, GEMINI.md,
Copilot's instructions); a project folder holding several of these is imported in one go.

Each format is an :class:`Importer` in the ``importers`` plug-in registry (entry-point group
``contextdesk.importers``): a plug-in exposes ``register_importers(register)`` and calls
``register("my-format", Importer(expected, detects, read))``, as the built-in formats do.
"""

from __future__ import annotations

from pathlib import Path

from agent_core.agent.importers._combine import combine_parts
from agent_core.agent.importers._common import (
    AgentImportError,
    ImportedAgent,
    Importer,
    ImportReport,
    ReadImport,
    read_structured_file,
)
from agent_core.agent.importers._merge import plan_import
from agent_core.agent.importers._source_root import reading_from
from agent_core.agent.importers._staging import write_plan
from agent_core.agent.importers._target import check_import_target
from agent_core.agent.importers.mcp_json import servers_from_mcp_json
from agent_core.agent.server_trust import trust_command
from agent_core.plugins import PluginRegistry

__all__ = [
    "IMPORTERS",
    "AgentImportError",
    "ImportReport",
    "ImportedAgent",
    "Importer",
    "ReadImport",
    "apply_import",
    "check_import_target",
    "detected_formats",
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
        "agent_core.agent.importers.skills:register_importers",
        "agent_core.agent.importers.instruction_files:register_importers",
    ),
)


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
    readers = _readers_for(source)
    if readers:
        with reading_from(source):  # no file found in it is read through a link leading out
            return combine_parts(_read_parts(readers, source, copy_secrets=copy_secrets))
    expected = _one_of([importer.expected for _, importer in IMPORTERS.plugins()])
    if source.is_dir():
        raise AgentImportError(f"nothing to import in {source}: expected {expected}")
    read_structured_file(source)  # a file that cannot even be parsed: say so rather than "not a format"
    raise AgentImportError(f"{source} is not a format ContextDesk imports: expected {expected}")


def detected_formats(source: Path) -> list[str]:
    """What :func:`read_source` would import from ``source``, one line per format found (a
    project folder can hold several: its Cursor rules, skills, sub-agents, MCP servers); empty
    when it holds nothing ContextDesk imports, or does not exist. May walk a large folder: call
    it off a GUI thread.

    Raises:
        AgentImportError: ``source`` is a file no format detects because it cannot be parsed
            (a JSON or YAML file with a typo): the message says where.
    """
    source = source.expanduser()
    if not source.is_dir() and not source.is_file():
        return []
    found = [importer.expected for importer in _readers_for(source)]
    if not found and source.is_file():
        read_structured_file(source)  # say why it cannot be read rather than "nothing to import"
    return found


def _readers_for(source: Path) -> list[Importer]:
    """The importers that read ``source``: the first registered one that detects it and, when
    it reads a part of a project folder, every other part's importer that detects it too."""
    importers = [importer for _, importer in IMPORTERS.plugins()]
    for index, importer in enumerate(importers):
        if importer.detects(source):
            readers = [importer]
            if importer.combines and source.is_dir():  # a project: every part of it in one go
                readers += [
                    other for other in importers[index + 1 :] if other.combines and other.detects(source)
                ]
            return readers
    return []


def _read_parts(readers: list[Importer], source: Path, *, copy_secrets: bool) -> list[ImportedAgent]:
    """Each reader's part of ``source``; a part after the first that cannot be read is reported and
    the others are still imported (the first one's failure is the import's)."""
    parts = [readers[0].read(source, copy_secrets=copy_secrets)]
    for reader in readers[1:]:
        try:
            parts.append(reader.read(source, copy_secrets=copy_secrets))
        except AgentImportError as error:
            parts[0].report.skipped.append(f"{reader.expected}: {error}")
    return parts


def import_source(
    source: Path,
    target: Path,
    *,
    replace: bool = False,
    dry_run: bool = False,
    copy_secrets: bool = False,
    overwrite: bool = False,
    keep_duplicates: bool = False,
) -> ImportReport:
    """Read ``source`` and merge it into the agent at ``target`` (created when missing).

    ``overwrite`` is the former name of ``replace``. See :func:`apply_import`.

    Raises:
        AgentImportError: the source cannot be imported, or the import could not be moved into
            place; the agent is unchanged either way.
    """
    imported = read_source(source, copy_secrets=copy_secrets)
    return apply_import(
        imported, target, replace=replace or overwrite, dry_run=dry_run, keep_duplicates=keep_duplicates
    )


def apply_import(
    imported: ImportedAgent,
    target: Path,
    *,
    replace: bool = False,
    dry_run: bool = False,
    overwrite: bool = False,
    keep_duplicates: bool = False,
) -> ImportReport:
    """Merge an import into an agent folder, all or nothing, and say what was done.

    A name the agent already uses for something different gets a numbered suffix (``rule-2``)
    unless ``replace``; identical entries are left alone; the agent's own settings are kept unless
    ``replace``. A skill found twice (same name, or the same SKILL.md) is kept once unless
    ``keep_duplicates``. ``dry_run`` decides and reports the same way but writes nothing.

    Raises:
        AgentFileError: the agent.yaml at ``target`` could not be saved over (nothing is written).
        AgentImportError: the import could not be moved into place (the agent is unchanged).
        AtomicWriteError: a file could not be written (the agent is unchanged).
    """
    target = target.expanduser()
    plan = plan_import(imported, target, replace=replace or overwrite, keep_duplicates=keep_duplicates)
    imported.report.dry_run = dry_run
    if any(block.get("type") != "internal" for block in imported.mcp_servers.values()):
        imported.report.warnings.append(
            f"the imported MCP servers start only once you trust what they run: `{trust_command(target)}` "
            "prints each command line and trusts them (the desktop app asks when the agent opens)"
        )
    if not dry_run:
        write_plan(plan, target)
    return imported.report


def _one_of(choices: list[str]) -> str:
    if not choices:
        return "a format of an importer plug-in, but none is installed (see the log)"
    return choices[0] if len(choices) == 1 else f"{', '.join(choices[:-1])} or {choices[-1]}"
