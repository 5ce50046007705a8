"""Creating, checking, saving and deleting ``workflows/NAME.yaml`` (for the desktop's editor).

Unlike a sub-agent, a workflow with problems is still saved: its problems are then shown at their
lines (the file stays left out of the agent until they are fixed), which is how one debugs it.
"""

from __future__ import annotations

from pathlib import Path

from agent_core.agent.agent import Agent
from agent_core.agent.items import Problem
from agent_core.agent.names import name_problem
from agent_core.agent.workflow_files.check import check_workflow
from agent_core.agent.workflow_files.loader import WORKFLOWS_FOLDER, parse_workflow
from agent_core.atomic import atomic_write_text
from agent_core.errors import AgentFileError

__all__ = [
    "TEMPLATE",
    "check_workflow_text",
    "delete_workflow",
    "problems_of",
    "save_workflow",
    "template_for",
    "workflow_path",
]

TEMPLATE = """\
# {name}: a workflow (docs/workflows.md). States share a context store; {{{{var}}}} reads it.
# Every state asks for plain text, so any model runs it, the small bundled one too (its texts are
# simple). A state whose output is not what the next one reads stops the run for review.
description: Outline a topic as three short points, then write a short text covering them.
inputs:
  topic: {{type: string, description: What to write about}}
limits: {{maxSteps: 20, maxTokens: 100000, timeoutSeconds: 600}}
assistants:
  - id: writer
    system_prompt: You write short, clear texts.
states:
  - id: outline
    assistant_id: writer
    task: Write three short points to cover in a text about {{{{topic}}}}, one per line.
    # Its text is stored as points; the draft reads only that, so it gets no history to echo.
    next: {{state_id: draft, output_key: points, clear_prior_messages: true}}
  - id: draft
    assistant_id: writer
    # No word limit: nothing checks one and small models overrun it (a check would be a state
    # whose output_schema says maxLength, with a model that follows JSON schemas).
    task: Write a short paragraph about {{{{topic}}}} covering these points - {{{{points}}}}
    next: {{state_id: end, output_key: text}}
"""


def workflow_path(root: Path, name: str) -> Path:
    """``workflows/NAME.yaml`` of the agent in ``root``.

    Raises:
        AgentFileError: ``name`` is not a safe file name.
    """
    if problem := name_problem(name):
        raise AgentFileError(f"workflow name: {problem}")
    return root / WORKFLOWS_FOLDER / f"{name}.yaml"


def template_for(name: str) -> str:
    return TEMPLATE.format(name=name)


def _same_file(a: Path, b: Path) -> bool:
    return a.resolve() == b.resolve()


def problems_of(agent: Agent, path: Path) -> list[Problem]:
    """The problems the agent's last load found in the workflow file ``path``, by line."""
    found = [p for p in agent.problems if _same_file(p.path, path)]
    return sorted(found, key=lambda p: (p.line or 0, p.severity != "error"))


def check_workflow_text(agent: Agent, path: Path, text: str) -> list[Problem]:
    """What the static check says of ``text`` as the file ``path``, without saving it (blocking:
    run it off the GUI thread)."""
    problems: list[Problem] = []
    workflow = parse_workflow(path, text, problems)
    if workflow is not None:
        problems.extend(check_workflow(workflow, subagents=agent.subagents))
    return sorted(problems, key=lambda p: (p.line or 0, p.severity != "error"))


def save_workflow(path: Path, text: str) -> None:
    """Write the file atomically, problems or not (they are shown once the agent reloads).

    Raises:
        AtomicWriteError: the file could not be written (the old one is intact).
    """
    atomic_write_text(path, text)


def delete_workflow(path: Path) -> None:
    """Raises:
    AgentFileError: the file could not be removed."""
    try:
        path.unlink()
    except FileNotFoundError:
        return
    except OSError as error:
        raise AgentFileError(
            f"could not delete {path} ({error.strerror}): check that the folder is writable"
        ) from error
