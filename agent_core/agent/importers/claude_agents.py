"""Claude Code sub-agents: ``.claude/agents/*.md`` (a project, its ``.claude`` folder, the
``agents`` folder itself with its sub-folders, or one file). Each file is copied to ``subagents/``,
where ContextDesk reads it as Claude Code does; what it cannot use (Claude's shell and edit tools,
``color``…) is reported.

Files written for Claude Code are messy, and every one of them imports unless it truly cannot be
read (not UTF-8 text, too large, a link out of the source), which the report says with the reason:
a header YAML rejects is read line by line; a name that cannot be a file name becomes a valid one
(the original kept as the display name); a file without a name is named by its file; a file without
a header gets one (``_claude_agent_text``); a second file with a name already taken is numbered. The
report says each change and why.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_core.agent.frontmatter_folder import parse_headered_text
from agent_core.agent.importers._claude_agent_text import (
    AgentText,
    described_by_text,
    find_header,
    renamed,
    with_header,
)
from agent_core.agent.importers._common import (
    AgentImportError,
    ImportedAgent,
    Importer,
    ImportReport,
    read_import_text,
)
from agent_core.agent.items import Problem
from agent_core.agent.names import numbered_name
from agent_core.agent.subagent_files.loader import SUBAGENT_FILES, parse_subagent
from agent_core.agent.subagent_files.naming import subagent_name
from agent_core.plugins import Register

__all__ = ["detects_claude_agents", "find_claude_agents", "import_claude_agents", "register_importers"]

FORMAT = "Claude Code sub-agents (.claude/agents/*.md)"
MAX_AGENT_FILES = 1_000  # more is not a folder of agents someone keeps; the rest are reported
_MAX_DEPTH = 4  # sub-folders of agents/ read (Claude Code reads them too)
# Files kept beside agent files that are not agents: left out when they have no header (so are
# names in capitals: README, TESTING).
_NOT_AGENTS = {"readme", "changelog", "contributing", "license", "claude", "agents", "security", "index"}


def find_claude_agents(source: Path) -> Path | None:
    """The folder of Claude Code agent files meant by ``source``, if any."""
    for candidate in (source / ".claude" / "agents", source / "agents", source):
        if candidate.is_dir() and candidate.name == "agents" and _agent_files(candidate, limit=1)[0]:
            return candidate
    return None


def _agent_files(folder: Path, *, limit: int | None = None) -> tuple[list[Path], bool]:
    """The ``.md`` files in ``folder`` and its sub-folders (links to folders are not followed),
    sorted, at most ``limit`` (``MAX_AGENT_FILES``) of them; and whether there were more."""
    limit = MAX_AGENT_FILES if limit is None else limit
    found: list[Path] = []
    for current, folders, files in os.walk(folder):
        depth = len(Path(current).relative_to(folder).parts)
        folders[:] = sorted(f for f in folders if not f.startswith(".")) if depth < _MAX_DEPTH else []
        for name in sorted(files):
            if name.endswith(".md") and not name.startswith("."):
                if len(found) == limit:
                    return sorted(found), True
                found.append(Path(current) / name)
    return sorted(found), False


def detects_claude_agents(source: Path) -> bool:
    """A project, ``.claude`` or ``agents`` folder with agent files, or one ``.md`` file in an
    ``agents`` folder."""
    if source.is_dir():
        return find_claude_agents(source) is not None
    return source.suffix == ".md" and source.parent.name == "agents" and not _documentation(source.stem)


def _import_detected(source: Path, *, copy_secrets: bool) -> ImportedAgent:
    return import_claude_agents(source)  # agent files hold no secrets


def register_importers(register: Register[Importer]) -> None:
    """The Claude Code sub-agents importer."""
    register("claude-agents", Importer(FORMAT, detects_claude_agents, _import_detected, combines=True))


def import_claude_agents(source: Path) -> ImportedAgent:
    """Every agent file of ``source`` as a sub-agent.

    Raises:
        AgentImportError: ``source`` holds no agent file.
    """
    imported = ImportedAgent(report=ImportReport(FORMAT))
    if source.is_file():
        folder, files, more = source.parent, [source], False
    else:
        folder = find_claude_agents(source) or source
        files, more = _agent_files(folder)
    if not files:
        raise AgentImportError(f"no Claude Code agent files in {source}: expected .claude/agents/*.md")
    if more:
        imported.report.skipped.append(
            f"{folder}: more than {MAX_AGENT_FILES:,} .md files; only the first {MAX_AGENT_FILES:,} "
            "are imported: import the rest from their own folders"
        )
    taken: dict[str, str] = {}  # lower-case name -> the file that has it
    for file in files:
        _import_file(file, file.relative_to(folder).as_posix(), imported, taken)
    return imported


def _import_file(file: Path, shown: str, imported: ImportedAgent, taken: dict[str, str]) -> None:
    report = imported.report
    try:
        text = read_import_text(file)
    except AgentImportError as error:
        report.skipped.append(f"{shown}: {error}")
        return
    if "\0" in text:  # a text file has no NUL: this one is binary or damaged, and would not load
        report.skipped.append(f"{shown}: contains a NUL character, so it is not text; save it as plain text")
        return
    found = find_header(text)
    notes = [f"{shown}: {found.repair}"] if found.repair else []
    if found.header is None:
        named = _headerless(file, shown, found, taken, notes, report)
        if named is None:
            return
    else:
        named = _named(file, shown, found, taken, notes)
    name, text = named
    problems: list[Problem] = []
    # Checked as the file it becomes: subagents/NAME.md, which the loader names by its header or file.
    subagent = parse_subagent(file.parent / f"{name}.md", text, problems)
    if subagent is None:
        reasons = "; ".join(p.describe() for p in problems if p.severity == "error")
        report.skipped.append(f"{shown}: {reasons}")
        return
    taken[name.lower()] = shown
    imported.subagent_files[name] = text
    report.warnings += notes + [f"{shown}: {p.message}" for p in problems]


def _headerless(
    file: Path, shown: str, found: AgentText, taken: dict[str, str], notes: list[str], report: ImportReport
) -> tuple[str, str] | None:
    """The text of a file without a header, under a header that names and describes it; None
    (with the reason in the report) when it is not an agent at all."""
    if _documentation(file.stem):
        report.skipped.append(
            f"{shown}: has no header and its name says it is documentation, not an agent "
            "(to import it as one, give it a header with a description)"
        )
        return None
    description = described_by_text(found.text)
    if description is None:
        report.skipped.append(f"{shown}: is empty (no header, no text): write the agent's prompt in it")
        return None
    wanted = subagent_name(None, file.stem).name
    name = numbered_name(wanted, set(taken))
    named_by = "named by its file" if name == wanted else f"as {taken[wanted.lower()]} is already '{wanted}'"
    notes.append(
        f"{shown}: has no header: it is the sub-agent '{name}' ({named_by}), its whole text the "
        f"prompt and its description taken from the text ('{description}'); a header saying so is "
        "added to the copy"
    )
    return name, with_header(name, description, found.text)


def _documentation(stem: str) -> bool:
    """A file name that says "documentation" (``README``, ``CHANGELOG``, ``TESTING``: a name in
    capitals, as repositories name their documents; agents are named in lower case)."""
    return stem.lower() in _NOT_AGENTS or (stem.upper() == stem and any(c.isalpha() for c in stem))


def _named(
    file: Path, shown: str, found: AgentText, taken: dict[str, str], notes: list[str]
) -> tuple[str, str]:
    """The name and text of a file with a header, its ``name:`` changed only when another file
    has that name."""
    header = parse_headered_text(file, found.text, SUBAGENT_FILES, [])
    given = (header.header or {}).get("name") if header else None
    wanted = subagent_name(given, file.stem).name
    name = numbered_name(wanted, set(taken))
    if name == wanted:
        return name, found.text
    other = taken[wanted.lower()]
    notes.append(
        f"{shown}: {other} is already the sub-agent '{wanted}', so this one is imported as '{name}' "
        + (f"(its name: line says {name} in the copy)" if given is not None else f"(as {name}.md)")
    )
    return name, renamed(found, name) if given is not None else found.text
