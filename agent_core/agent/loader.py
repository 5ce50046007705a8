"""Loading an agent folder: every valid part is loaded, every fault becomes a Problem.

A broken file never stops the agent from loading: ``config_loader`` reads agent.yaml and
``document_loader`` the rules and references, each recording what is wrong as a Problem.
"""

from __future__ import annotations

import logging
from pathlib import Path

from agent_core.agent._text_file import outside_problem
from agent_core.agent.agent import AGENT_FILE, Agent
from agent_core.agent.config_loader import LoadedConfig, fallback_config, load_config
from agent_core.agent.document_loader import load_documents
from agent_core.agent.items import Problem
from agent_core.agent.reference_check import unset_variables
from agent_core.agent.skill_files.loader import load_skills
from agent_core.agent.subagent_files.loader import load_subagents
from agent_core.agent.workflow_files.check import check_workflow
from agent_core.agent.workflow_files.loader import load_workflows
from agent_core.errors import AgentFileError

__all__ = ["load_agent"]

logger = logging.getLogger(__name__)


def load_agent(root: Path | str) -> Agent:
    """Load the agent in folder ``root``, collecting problems instead of failing on them.

    Raises:
        AgentFileError: ``root`` is not a folder or has no ``agent.yaml``.
    """
    root = Path(root).expanduser().resolve()
    if not root.is_dir():
        raise AgentFileError(
            f"{root} is not a folder: pass the folder that holds agent.yaml, "
            f"or create an agent there with `contextdesk agent new {root}`"
        )
    agent_file = root / AGENT_FILE
    if not agent_file.exists():  # a folder or pipe named agent.yaml is a Problem, below
        raise AgentFileError(
            f"{root} has no {AGENT_FILE}, so it is not a ContextDesk agent: "
            f"create one with `contextdesk agent new {root}`, or import an existing setup "
            f"with `contextdesk agent import SRC {root}`"
        )
    problems: list[Problem] = []
    if escape := outside_problem(agent_file, root):
        problems.append(escape)
        loaded = LoadedConfig(fallback_config(root.name), unreadable=escape)
    else:
        loaded = load_config(agent_file, problems)
    agent = Agent(
        root=root,
        config=loaded.config,
        problems=problems,
        unparsed_providers=loaded.unparsed_providers,
        unparsed_servers=loaded.unparsed_servers,
        saved_config=loaded.config.model_copy(deep=True),
        unreadable_config=loaded.unreadable,
    )
    for kind in ("rule", "reference"):
        agent.documents(kind).update(load_documents(root, kind, problems))
    agent.skills.update(load_skills(root, agent.config.skills, problems))
    agent.subagents.update(load_subagents(root, problems))
    agent.workflows.update(load_workflows(root, problems))
    for workflow in agent.workflows.values():
        servers = {name: config.type for name, config in agent.config.mcp_servers.items()}
        problems.extend(check_workflow(workflow, subagents=agent.subagents, agent_servers=servers))
    _check_secret_references(agent)
    problems.sort(key=lambda p: (str(p.path), p.line or 0))
    logger.debug(
        "loaded agent %s: %d rules, %d references, %d problems",
        root,
        len(agent.rules),
        len(agent.references),
        len(problems),
    )
    return agent


def _check_secret_references(agent: Agent) -> None:
    path = agent.root / AGENT_FILE
    for unset in unset_variables(agent.config):
        agent.problems.append(
            Problem(
                path,
                f"{unset.where} refers to the environment variable {unset.variable} ({unset.written}), "
                "which is not set",
                f"set {unset.variable} in your environment before starting ContextDesk",
                severity="warning",
            )
        )
