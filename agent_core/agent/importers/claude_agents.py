"""Claude Code sub-agents: ``.claude/agents/*.md`` (a project, its ``.claude`` folder, the
``agents`` folder itself, or one file). Each file is copied unchanged to ``subagents/``, where
ContextDesk reads it; what it cannot use (Claude's shell and edit tools, ``color``…) is reported."""

from __future__ import annotations

from pathlib import Path

from agent_core.agent._frontmatter import FrontmatterError, split_frontmatter
from agent_core.agent.importers._common import (
    AgentImportError,
    ImportedAgent,
    Importer,
    ImportReport,
    read_import_text,
    safe_item_name,
)
from agent_core.agent.items import Problem
from agent_core.agent.subagent_files.loader import load_subagent
from agent_core.plugins import Register

__all__ = ["detects_claude_agents", "find_claude_agents", "import_claude_agents", "register_importers"]


def find_claude_agents(source: Path) -> Path | None:
    """The folder of Claude Code agent files meant by ``source``, if any."""
    for candidate in (source / ".claude" / "agents", source / "agents", source):
        if candidate.is_dir() and candidate.name == "agents" and any(_agent_files(candidate)):
            return candidate
    return None


def _agent_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.md") if p.is_file() and not p.name.startswith("."))


def _looks_like_agent(path: Path) -> bool:
    try:
        header = split_frontmatter(path.read_text(encoding="utf-8", errors="replace")[:20_000]).header
    except (OSError, FrontmatterError):
        return False
    return header is not None and "description:" in header


def detects_claude_agents(source: Path) -> bool:
    """A project, ``.claude`` or ``agents`` folder with agent files, or one agent file in an
    ``agents`` folder."""
    if source.is_dir():
        return find_claude_agents(source) is not None
    return source.suffix == ".md" and source.parent.name == "agents" and _looks_like_agent(source)


def _import_detected(source: Path, *, copy_secrets: bool) -> ImportedAgent:
    return import_claude_agents(source)  # agent files hold no secrets


def register_importers(register: Register[Importer]) -> None:
    """The Claude Code sub-agents importer."""
    register(
        "claude-agents",
        Importer(
            "Claude Code sub-agents (.claude/agents/*.md)",
            detects_claude_agents,
            _import_detected,
            combines=True,
        ),
    )


def import_claude_agents(source: Path) -> ImportedAgent:
    """Every agent file of ``source`` as a sub-agent, its text unchanged.

    Raises:
        AgentImportError: ``source`` holds no agent file.
    """
    imported = ImportedAgent(report=ImportReport("Claude Code sub-agents (.claude/agents/*.md)"))
    files = [source] if source.is_file() else _agent_files(find_claude_agents(source) or source)
    if not files:
        raise AgentImportError(f"no Claude Code agent files in {source}: expected .claude/agents/*.md")
    for file in files:
        _import_file(file, imported)
    return imported


def _import_file(file: Path, imported: ImportedAgent) -> None:
    report = imported.report
    try:
        text = read_import_text(file)
    except AgentImportError as error:
        report.skipped.append(f"{file.name}: {error}")
        return
    problems: list[Problem] = []
    subagent = load_subagent(file, problems)
    if subagent is None:
        reasons = "; ".join(p.message for p in problems if p.severity == "error")
        report.skipped.append(f"{file.name}: {reasons}")
        return
    name = safe_item_name(subagent.name, report, "sub-agent")
    if name in imported.subagent_files:
        report.warnings.append(f"{file.name}: another file is the sub-agent '{name}'; this one is left out")
        return
    imported.subagent_files[name] = text
    for problem in problems:
        report.warnings.append(f"{file.name}: {problem.message}")
