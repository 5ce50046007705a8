"""Loading ``subagents/*.md``: every valid file loads, each fault becomes a located Problem."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent_core.agent._frontmatter import FrontmatterError, split_frontmatter
from agent_core.agent._text_file import outside_problem, read_text
from agent_core.agent._yaml_source import (
    YamlDocument,
    YamlSyntaxError,
    describe_validation_error,
    parse_yaml,
    validation_errors,
)
from agent_core.agent.items import Problem
from agent_core.agent.names import name_problem, suggest_name
from agent_core.agent.subagent_files.definition import (
    CLAUDE_ONLY_FIELDS,
    Subagent,
    SubagentFrontmatter,
    SubagentLimits,
)
from agent_core.agent.subagent_files.tool_names import tool_patterns

__all__ = ["SUBAGENTS_FOLDER", "load_subagent", "load_subagents", "parse_subagent"]

SUBAGENTS_FOLDER = "subagents"
SUFFIX = ".md"


def load_subagents(root: Path, problems: list[Problem]) -> dict[str, Subagent]:
    """Every valid sub-agent of the agent in ``root``, by name, sorted by name."""
    folder = root / SUBAGENTS_FOLDER
    if not folder.is_dir():
        if folder.exists() or folder.is_symlink():
            problems.append(
                Problem(
                    folder,
                    f"'{SUBAGENTS_FOLDER}' is a file, not a folder, so no sub-agent is read",
                    f"rename the file, then create a folder {SUBAGENTS_FOLDER}/ with one {SUFFIX} file "
                    "per sub-agent",
                )
            )
        return {}
    loaded: list[Subagent] = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or path.suffix != SUFFIX:
            continue
        if escape := outside_problem(path, root):
            problems.append(escape)
            continue
        if not path.is_file():
            problems.append(
                Problem(path, "not a regular file, so it is not read", f"make it a {SUFFIX} file")
            )
            continue
        if (subagent := load_subagent(path, problems)) is not None:
            loaded.append(subagent)
    # Of two with the same name, the one whose file is named after it wins.
    loaded.sort(key=lambda s: (s.name.lower(), s.path is None or s.path.stem != s.name))
    found: dict[str, Subagent] = {}
    for subagent in loaded:
        twin = next((f for f in found.values() if f.name.lower() == subagent.name.lower()), None)
        if twin is not None:
            problems.append(
                Problem(
                    subagent.path or folder,
                    f"another sub-agent ({twin.path.name if twin.path else twin.name}) is named "
                    f"'{twin.name}' (names differ only in case, or not at all)",
                    "rename one of the two; this one is left out",
                )
            )
            continue
        found[subagent.name] = subagent
    return dict(sorted(found.items()))


def load_subagent(path: Path, problems: list[Problem]) -> Subagent | None:
    """One sub-agent file (also a Claude Code agent file), or None with the problems recorded."""
    text = read_text(path, problems, too_large_fix="keep the sub-agent's prompt shorter")
    if text is None:
        return None
    return parse_subagent(path, text, problems)


def parse_subagent(path: Path, text: str, problems: list[Problem]) -> Subagent | None:
    """The sub-agent ``text`` describes (as if it were the file ``path``), or None with the
    problems recorded: an editor checks the text this way before saving it."""
    try:
        parts = split_frontmatter(text)
    except FrontmatterError as error:
        problems.append(Problem(path, str(error), "add a line with just '---' after the header", line=1))
        return None
    if parts.header is None:
        problems.append(
            Problem(
                path,
                "no header: a sub-agent needs at least a description (when to delegate to it)",
                "add a '---' header with name and description",
                line=1,
            )
        )
        return None
    try:
        document = parse_yaml(parts.header, first_line=parts.header_first_line)
    except YamlSyntaxError as error:
        problems.append(
            Problem(path, f"header: {error}", error.fix or "fix the YAML between the '---' lines", error.line)
        )
        return None
    if not isinstance(document.data, Mapping):
        problems.append(
            Problem(
                path,
                "the header must be a mapping of keys to values",
                "write `key: value` lines between the '---' lines",
                parts.header_first_line,
            )
        )
        return None
    header = _known_keys(dict(document.data), path, document, problems)
    try:
        meta = SubagentFrontmatter.model_validate(header)
    except ValidationError as error:
        for item in validation_errors(error):
            message, fix = describe_validation_error(item, SubagentFrontmatter)
            problems.append(
                Problem(
                    path,
                    f"header: {message}",
                    f"{fix}; this sub-agent is left out until then",
                    document.line_of(list(item["loc"])),
                )
            )
        return None
    name = meta.name or path.stem
    if problem := name_problem(name):
        problems.append(
            Problem(path, f"file name: {problem}", f"rename the file to {suggest_name(name)}{SUFFIX}")
        )
        return None
    if not meta.description.strip():
        problems.append(
            Problem(
                path,
                "the sub-agent has no description, so nothing tells the model when to delegate to it",
                "add a description: what it does and when to use it",
                document.line_of(["description"]) or parts.header_first_line,
                "warning",
            )
        )
    if not parts.body.strip():
        problems.append(
            Problem(
                path,
                "the sub-agent has no prompt",
                "write its instructions below the header",
                severity="warning",
            )
        )
    agent_folder = _agent_folder(meta.agent, path, document, problems)
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
                document.line_of(["tools"]),
                "warning",
            )
        )
    return Subagent(
        name=name,
        description=" ".join(meta.description.split()),
        prompt=parts.body.strip(),
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
    )


def _agent_folder(
    given: str | None, path: Path, document: YamlDocument, problems: list[Problem]
) -> Path | None:
    """The agent folder ``agent:`` names, which must be inside the agent that holds this file
    (an agent folder from someone else must not read files elsewhere on the machine)."""
    if given is None:
        return None
    root = path.parent.parent.resolve()
    folder = (root / given).resolve()
    line = document.line_of(["agent"])
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


def _known_keys(
    header: dict[str, Any], path: Path, document: YamlDocument, problems: list[Problem]
) -> dict[str, Any]:
    """The header without the keys that mean nothing here, each reported as a warning."""
    known = {field.alias or name for name, field in SubagentFrontmatter.model_fields.items()} | set(
        SubagentFrontmatter.model_fields
    )
    kept: dict[str, Any] = {}
    for key, value in header.items():
        if key in known:
            kept[key] = value
        elif key in CLAUDE_ONLY_FIELDS:
            problems.append(
                Problem(
                    path,
                    f"'{key}' is a Claude Code setting ContextDesk does not use; it is ignored",
                    "leave it for Claude Code, or remove it",
                    document.line_of([key]),
                    "warning",
                )
            )
        else:
            problems.append(
                Problem(
                    path,
                    f"unknown key '{key}' is ignored",
                    "check its spelling (see docs/subagents.md for the keys), or remove it",
                    document.line_of([key]),
                    "warning",
                )
            )
    return kept
