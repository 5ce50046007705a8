"""Loading ``subagents/*.md``: every valid file loads, each fault becomes a located Problem."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_core.agent.frontmatter_folder import (
    MARKDOWN,
    FolderKind,
    HeaderedFile,
    load_folder,
    parse_headered_text,
    read_headered_file,
    validate_header,
)
from agent_core.agent.items import Problem
from agent_core.agent.subagent_files.definition import (
    CLAUDE_ONLY_FIELDS,
    Subagent,
    SubagentFrontmatter,
    SubagentLimits,
)
from agent_core.agent.subagent_files.naming import subagent_name
from agent_core.agent.subagent_files.tool_names import tool_patterns

__all__ = ["SUBAGENTS_FOLDER", "SUBAGENT_FILES", "load_subagent", "load_subagents", "parse_subagent"]

SUBAGENTS_FOLDER = "subagents"

SUBAGENT_FILES = FolderKind(
    folder=SUBAGENTS_FOLDER,
    noun="sub-agent",
    too_large_fix="keep the sub-agent's prompt shorter",
    # Its sub-folders are the agent folders that ``agent:`` names, its other files theirs to keep.
    mention_others=False,
    named_by_file=False,  # the header may name it (Claude Code's files do)
    header_needed="a sub-agent needs at least a description (when to delegate to it)",
    loose_header=True,  # Claude Code reads a header YAML rejects, so these files must load here too
)


def load_subagents(root: Path, problems: list[Problem]) -> dict[str, Subagent]:
    """Every valid sub-agent of the agent in ``root``, by name, sorted by name."""
    return load_folder(root, SUBAGENT_FILES, _subagent, problems)


def load_subagent(path: Path, problems: list[Problem]) -> Subagent | None:
    """One sub-agent file (also a Claude Code agent file), or None with the problems recorded."""
    file = read_headered_file(path, SUBAGENT_FILES, problems)
    return None if file is None else _subagent(file, problems)


def parse_subagent(path: Path, text: str, problems: list[Problem]) -> Subagent | None:
    """The sub-agent ``text`` describes (as if it were the file ``path``), or None with the
    problems recorded: an editor checks the text this way before saving it."""
    file = parse_headered_text(path, text, SUBAGENT_FILES, problems)
    return None if file is None else _subagent(file, problems)


def _subagent(file: HeaderedFile, problems: list[Problem]) -> Subagent | None:
    path = file.path
    header = _known_keys(file, problems)
    naming = subagent_name(header.pop("name", None), file.name)
    if naming.change:
        fix = (
            f"write name: {naming.name} in the header to use that name everywhere"
            if "name" in (file.header or {})
            else f"rename the file to {naming.name}{MARKDOWN}"
        )
        problems.append(Problem(path, naming.change, fix, file.line_of("name"), "warning"))
    meta = validate_header(replace(file, header=header), SubagentFrontmatter, SUBAGENT_FILES, problems)
    if meta is None:
        return None
    name = naming.name
    if not meta.description.strip():
        problems.append(
            Problem(
                path,
                "the sub-agent has no description, so nothing tells the model when to delegate to it",
                "add a description: what it does and when to use it",
                file.line_of("description") or file.header_line,
                "warning",
            )
        )
    if not file.body.strip():
        problems.append(
            Problem(
                path,
                "the sub-agent has no prompt",
                "write its instructions below the header",
                severity="warning",
            )
        )
    agent_folder = _agent_folder(meta.agent, file, problems)
    if meta.agent is not None and agent_folder is None:
        return None
    tools = unsupported = None
    if meta.tools is not None:
        tools, unsupported = tool_patterns(meta.tools)
    disallowed, _ = tool_patterns(meta.disallowed_tools)
    if unsupported:
        problems.append(
            Problem(
                path,
                f"tools {', '.join(unsupported)} have no ContextDesk counterpart and are left out",
                "remove them, or name an MCP tool that does the job (server.tool)",
                file.line_of("tools"),
                "warning",
            )
        )
    return Subagent(
        name=name,
        description=" ".join(meta.description.split()),
        prompt=file.body.strip(),
        tools=tools,
        disallowed_tools=disallowed,
        model=meta.model,
        rules=tuple(meta.rules),
        references=tuple(meta.references),
        context=meta.context,
        include=meta.include,
        output_schema=meta.output,
        limits=SubagentLimits.of(meta),
        path=path,
        agent_folder=agent_folder,
        inherit_approvals=meta.approvals == "inherit",
        unsupported_tools=unsupported or (),
        display_name=naming.display_name,
    )


def _agent_folder(given: str | None, file: HeaderedFile, problems: list[Problem]) -> Path | None:
    """The agent folder ``agent:`` names, which must be inside the agent that holds this file
    (an agent folder from someone else must not read files elsewhere on the machine)."""
    if given is None:
        return None
    path = file.path
    root = path.parent.parent.resolve()
    folder = (root / given).resolve()
    line = file.line_of("agent")
    if not folder.is_relative_to(root) or folder == root:
        problems.append(
            Problem(
                path,
                f"agent: {given} is outside this agent's folder",
                "copy that agent into this agent's folder (e.g. subagents/NAME/) and name it by its path there",
                line,
            )
        )
        return None
    if not (folder / "agent.yaml").is_file():
        problems.append(
            Problem(
                path,
                f"agent: {given} is not an agent folder (it has no agent.yaml)",
                "point it at a folder that holds an agent.yaml",
                line,
            )
        )
        return None
    return folder


def _known_keys(file: HeaderedFile, problems: list[Problem]) -> dict[str, Any]:
    """The header without the keys that mean nothing here, each reported as a warning."""
    known = {field.alias or name for name, field in SubagentFrontmatter.model_fields.items()} | set(
        SubagentFrontmatter.model_fields
    )
    kept: dict[str, Any] = {}
    for key, value in (file.header or {}).items():
        if key in known:
            kept[key] = value
        elif key in CLAUDE_ONLY_FIELDS:
            problems.append(
                Problem(
                    file.path,
                    f"'{key}' is a Claude Code setting ContextDesk does not use; it is ignored",
                    "leave it for Claude Code, or remove it",
                    file.line_of(key),
                    "warning",
                )
            )
        else:
            problems.append(
                Problem(
                    file.path,
                    f"unknown key '{key}' is ignored",
                    "check its spelling (see docs/subagents.md for the keys), or remove it",
                    file.line_of(key),
                    "warning",
                )
            )
    return kept
