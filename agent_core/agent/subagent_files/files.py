"""Creating, checking, saving and deleting ``subagents/NAME.md`` (for the desktop's editor): a
file is written, atomically, only when it loads without errors."""

from __future__ import annotations

from pathlib import Path

from agent_core.agent.items import Problem
from agent_core.agent.names import name_problem
from agent_core.agent.subagent_files.loader import SUBAGENTS_FOLDER, parse_subagent
from agent_core.atomic import atomic_write_text
from agent_core.errors import AgentFileError

__all__ = [
    "TEMPLATE",
    "check_subagent_text",
    "delete_subagent",
    "save_subagent",
    "subagent_path",
    "template_for",
]

TEMPLATE = """---
name: {name}
description: What it does and when to delegate to it (the parent's model reads this).
tools: [workspace.read_file, workspace.list_files, workspace.search_files]
context: isolated          # isolated: the task only; fork: the chat so far; summary: its summary
limits: {{maxTurns: 10, maxTokens: 100000, timeoutSeconds: 300}}
---
You are a sub-agent. Do the task you are given with the tools you have, then answer in a few
sentences: only your answer goes back to the chat that asked.
"""


def subagent_path(root: Path, name: str) -> Path:
    """``subagents/NAME.md`` of the agent in ``root``.

    Raises:
        AgentFileError: ``name`` is not a safe file name.
    """
    if problem := name_problem(name):
        raise AgentFileError(f"sub-agent name: {problem}")
    return root / SUBAGENTS_FOLDER / f"{name}.md"


def template_for(name: str) -> str:
    return TEMPLATE.format(name=name)


def check_subagent_text(root: Path, name: str, text: str) -> list[Problem]:
    """What is wrong with ``text`` as the sub-agent ``name`` (errors and warnings)."""
    problems: list[Problem] = []
    subagent = parse_subagent(subagent_path(root, name), text, problems)
    if subagent is not None and subagent.name != name:
        problems.append(
            Problem(
                subagent_path(root, name),
                f"the header names it '{subagent.name}', but it is saved as {name}.md",
                f"change the name to {name}, or save it as {subagent.name}.md",
            )
        )
    return problems


def save_subagent(root: Path, name: str, text: str) -> list[Problem]:
    """Write the sub-agent ``name`` when ``text`` has no error; returns its warnings.

    Raises:
        AgentFileError: the text has errors (the first one, with its fix); nothing is written.
        AtomicWriteError: the file could not be written (the old one is intact).
    """
    problems = check_subagent_text(root, name, text)
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise AgentFileError(f"not saved: {errors[0].describe()}")
    path = subagent_path(root, name)
    path.parent.mkdir(exist_ok=True)
    atomic_write_text(path, text)
    return problems


def delete_subagent(root: Path, name: str) -> None:
    """Remove ``subagents/NAME.md`` (nothing happens when it is already gone)."""
    subagent_path(root, name).unlink(missing_ok=True)
