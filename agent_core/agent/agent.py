"""An agent folder as loaded: its settings, its rules, references, skills and sub-agents, and what
was wrong with it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_core.agent.items import DocumentItem, DocumentKind, Problem
from agent_core.agent.schema import AgentConfig
from agent_core.agent.skill_files.definition import Skill
from agent_core.agent.subagent_files.definition import Subagent
from agent_core.agent.workflow_files.loader import Workflow
from agent_core.errors import AgentFileError

__all__ = ["AGENT_FILE", "Agent"]

AGENT_FILE = "agent.yaml"


@dataclass
class Agent:
    """An agent folder as loaded: its settings, its items and what was wrong with it."""

    root: Path
    config: AgentConfig
    rules: dict[str, DocumentItem] = field(default_factory=dict)
    references: dict[str, DocumentItem] = field(default_factory=dict)
    subagents: dict[str, Subagent] = field(default_factory=dict)
    skills: dict[str, Skill] = field(default_factory=dict)
    workflows: dict[str, Workflow] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    # Blocks of agent.yaml that failed validation, kept verbatim so a save does not drop them.
    unparsed_providers: dict[str, Any] = field(default_factory=dict)
    unparsed_servers: dict[str, Any] = field(default_factory=dict)
    # The settings as agent.yaml held them when loaded (or last saved): a save writes only what
    # differs from them, so whatever else is in the file stays as the user wrote it.
    saved_config: AgentConfig | None = field(default=None, repr=False, compare=False)
    # Set when agent.yaml could not be read at all: ``config`` is then a fallback, and chatting is
    # refused rather than done with a model and servers the user did not choose.
    unreadable_config: Problem | None = None

    def refuse_unreadable_config(self) -> None:
        """Raise when agent.yaml could not be read: settings that were never read are not guessed.

        Raises:
            AgentFileError: naming the file, the line and the fix.
        """
        problem = self.unreadable_config
        if problem is None:
            return
        raise AgentFileError(
            f"{problem.location()}: {problem.message}. Fix the file (or run `contextdesk agent check "
            f"{self.root}` for details); ContextDesk will not guess the model and servers from a file it "
            "could not read."
        )

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    def documents(self, kind: DocumentKind) -> dict[str, DocumentItem]:
        return self.rules if kind == "rule" else self.references

    def document(self, kind: DocumentKind, name: str) -> DocumentItem | None:
        return self.documents(kind).get(name)
