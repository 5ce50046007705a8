"""Importing existing setups: TsAgent agents, Cursor rules, Claude Code sub-agents, ``mcpServers``
JSON files, Agent Skills and the instruction files of a project (AGENTS.md, CLAUDE.md, GEMINI.md,
Copilot's instructions); a project folder holding several of these is imported in one go.

Each format is an :class:`Importer` in the ``importers`` plug-in registry (entry-point group
``contextdesk.importers``): a plug-in exposes ``register_importers(register)`` and calls
``register("my-format", Importer(expected, detects, read))``, as the built-in formats do.
"""

from __future__ import annotations

from collections.abc import Collection
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
from agent_core.agent.importers._skill_trust import skill_trust_lines
from agent_core.agent.importers._source_root import reading_from
from agent_core.agent.importers._staging import write_plan
from agent_core.agent.importers._target import check_import_target
from agent_core.agent.importers.mcp_json import servers_from_mcp_json
from agent_core.agent.server_trust import trust_command
from agent_core.plugins import PluginRegistry

__all__ = [
    "IMPORTERS",
    "SKILL_IMPORTERS",
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
# What the desktop's "Import skills into this agent" reads: a cloned collection's own AGENTS.md or
# CLAUDE.md is written for the collection's contributors, and imported as an always-on rule it
# would go with every message (and overflow a small model's window).
SKILL_IMPORTERS = ("skills",)


def read_source(
    source: Path,
    *,
    copy_secrets: bool = False,
    only: Collection[str] | None = None,
    target: Path | None = None,
) -> ImportedAgent:
    """Read ``source`` with the first registered importer that detects it.

    ``target``: the agent folder the import goes into; when it lies inside ``source`` it is not
    read (its own skills would be imported into it again), and the report says so.

    ``only``: the names of the importers that may read it (``SKILL_IMPORTERS``); what the others
    would have imported is reported as not imported, with how to import it. None: every importer.

    Raises:
        AgentImportError: no importer recognises the source (of those in ``only``), it cannot be
            read, or ``only`` names an importer that is not registered.
    """
    source = source.expanduser()
    if not source.exists():
        raise AgentImportError(f"{source} does not exist: check the path")
    if not source.is_dir() and not source.is_file():
        raise AgentImportError(
            f"{source} is not an ordinary file or folder (a named pipe or a device): import a file or a folder"
        )
    allowed = _allowed_importers(only)
    readers = _readers_for(source, allowed)
    with reading_from(source, target):  # nothing read through a link leading out, nor from target
        left_out = [] if only is None else _left_out_parts(source, readers, allowed, copy_secrets)
        if readers:
            imported = combine_parts(_read_parts(readers, source, copy_secrets=copy_secrets))
            imported.report.skipped += left_out
            return imported
    expected = _one_of([importer.expected for importer in allowed])
    if source.is_dir():
        found = "".join(f"; {line}" for line in left_out)
        raise AgentImportError(f"nothing to import in {source}: expected {expected}{found}")
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
    found = [importer.expected for importer in _readers_for(source, _allowed_importers(None))]
    if not found and source.is_file():
        read_structured_file(source)  # say why it cannot be read rather than "nothing to import"
    return found


def _allowed_importers(only: Collection[str] | None) -> list[Importer]:
    """The registered importers named in ``only`` (every one when None), in registration order.

    Raises:
        AgentImportError: ``only`` names an importer that is not registered.
    """
    plugins = IMPORTERS.plugins()
    if only is None:
        return [importer for _, importer in plugins]
    if unknown := sorted(set(only) - {name for name, _ in plugins}):
        raise AgentImportError(
            f"no importer is named {', '.join(unknown)}: choose from {', '.join(sorted(n for n, _ in plugins))}"
        )
    return [importer for name, importer in plugins if name in only]


def _left_out_parts(
    source: Path, readers: list[Importer], allowed: list[Importer], copy_secrets: bool
) -> list[str]:
    """One line for each part of ``source`` an unrestricted import would also read: what it
    holds, that it was not imported, and how to import it."""
    wanted = _one_of([importer.expected for importer in allowed])
    lines = []
    for importer in _readers_for(source, _allowed_importers(None)):
        if importer in readers:
            continue
        try:
            holds = _contents(importer.read(source, copy_secrets=copy_secrets))
        except AgentImportError:
            holds = "what it holds"
        lines.append(
            f"{holds} of {importer.expected}: not imported, as this import takes only {wanted}; to import "
            f"it as well, import {source} as an agent: `contextdesk agent import {source} AGENT_FOLDER`, "
            "or in the desktop File ▸ Import agent (a file or a folder)… into this agent"
        )
    return lines


def _contents(part: ImportedAgent) -> str:
    """What an import holds, by kind and name: "rules 'agents-md', 'claude-md'"."""
    kinds: dict[str, list[str]] = {}
    for document in part.documents:
        kinds.setdefault(f"{document.kind}s", []).append(document.name)
    kinds["skills"] = [skill.name for skill in part.skills]
    kinds["sub-agents"] = list(part.subagent_files)
    kinds["workflows"] = list(part.workflow_files)
    kinds["MCP servers"] = list(part.mcp_servers)
    kinds["providers"] = list(part.providers)
    shown = []
    for kind, names in kinds.items():
        listed = ", ".join(f"'{name}'" for name in names[:5])
        if names:
            shown.append(f"{kind} {listed}" + (f" and {len(names) - 5} more" if len(names) > 5 else ""))
    return "; ".join(shown) or "the settings"


def _readers_for(source: Path, importers: list[Importer]) -> list[Importer]:
    """The importers that read ``source``: the first of ``importers`` that detects it and, when
    it reads a part of a project folder, every other part's importer that detects it too."""
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
    only: Collection[str] | None = None,
) -> ImportReport:
    """Read ``source`` and merge it into the agent at ``target`` (created when missing).

    ``overwrite`` is the former name of ``replace``; ``only`` restricts the importers (see
    :func:`read_source`). See :func:`apply_import`.

    Raises:
        AgentImportError: the source cannot be imported, or the import could not be moved into
            place; the agent is unchanged either way.
    """
    imported = read_source(source, copy_secrets=copy_secrets, only=only, target=target)
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
    """Merge an import into an agent folder, all or nothing, and say what was done. When nothing
    is imported (everything found was left out, or the agent has it already), nothing is written:
    no new agent folder is created, and ``report.nothing_imported`` says so.

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
    imported.report.trust_warnings = skill_trust_lines(plan.skills.skills, target)
    if any(block.get("type") != "internal" for block in imported.mcp_servers.values()):
        imported.report.warnings.append(
            f"the imported MCP servers start only once you trust what they run: `{trust_command(target)}` "
            "prints each command line and trusts them (the desktop app asks when the agent opens)"
        )
    # Nothing to write: a new agent folder holding only agent.yaml would look like a success.
    imported.report.nothing_imported = not (
        imported.report.created or imported.report.changed or _has_settings(imported)
    )
    if not dry_run and not imported.report.nothing_imported:
        write_plan(plan, target)
    return imported.report


def _has_settings(imported: ImportedAgent) -> bool:
    # Settings are not listed as imported for a new agent, yet a TsAgent agent of only a system
    # prompt is something imported.
    return any(
        (imported.name, imported.description, imported.system_prompt, imported.chat, imported.selection)
    )


def _one_of(choices: list[str]) -> str:
    if not choices:
        return "a format of an importer plug-in, but none is installed (see the log)"
    return choices[0] if len(choices) == 1 else f"{', '.join(choices[:-1])} or {choices[-1]}"
