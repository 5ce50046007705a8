"""One import from the parts of a project folder: its skills, instruction files, Cursor rules,
Claude Code sub-agents and MCP config, each read by its own importer.

The first part's name and settings win (a later part seldom has any); items are gathered, and two
rules of one name from different parts are told apart with a numbered suffix, as within a part.
"""

from __future__ import annotations

from typing import TypeVar

from agent_core.agent.importers._common import ImportedAgent, ImportReport

ValueT = TypeVar("ValueT")

__all__ = ["combine_parts"]


def combine_parts(parts: list[ImportedAgent]) -> ImportedAgent:
    """``parts`` as one import; a single part is returned as it is."""
    if len(parts) == 1:
        return parts[0]
    report = ImportReport(" + ".join(part.report.source_format for part in parts))
    combined = ImportedAgent(report=report)
    for part in parts:
        report.created.extend(part.report.created)
        report.changed.extend(part.report.changed)
        report.skipped.extend(part.report.skipped)
        report.warnings.extend(part.report.warnings)
        combined.name = combined.name or part.name
        combined.description = combined.description or part.description
        combined.system_prompt = combined.system_prompt or part.system_prompt
        combined.chat = {**part.chat, **combined.chat}
        combined.selection = {**part.selection, **combined.selection}
        _add_missing(combined.providers, part.providers)
        _add_missing(combined.mcp_servers, part.mcp_servers)
        _add_missing(combined.subagent_files, part.subagent_files)
        _add_missing(combined.workflow_files, part.workflow_files)
        for document in part.documents:
            combined.add_document(
                document.kind,
                document.name,
                description=document.description,
                priority_level=document.priority_level,
                include=document.include,
                text=document.text,
                globs=document.globs,
            )
        combined.skills += part.skills
    return combined


def _add_missing(target: dict[str, ValueT], source: dict[str, ValueT]) -> None:
    for key, value in source.items():
        target.setdefault(key, value)
