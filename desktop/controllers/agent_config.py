"""Saving a change to an agent's settings (agent.yaml) from the desktop app."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from agent_core.agent.agent import Agent
from agent_core.agent.schema import AgentConfig
from agent_core.agent.writer import save_agent_config

__all__ = ["save_config_change"]


def save_config_change(agent: Agent, change: Callable[[AgentConfig], None]) -> None:
    """Write agent.yaml with ``change`` applied to a copy of the agent's settings (blocking: file IO).

    The live agent is left as it was: the reload that follows compares the new settings with it,
    which is how it knows to restart changed MCP servers and recreate changed providers.

    Raises:
        AtomicWriteError: agent.yaml could not be written; it is unchanged.
    """
    config = agent.config.model_copy(deep=True)
    change(config)
    save_agent_config(dataclasses.replace(agent, config=config))
