"""Trusting the MCP servers of an agent folder a test wrote, as the user would (``contextdesk agent trust``)."""

from __future__ import annotations

from pathlib import Path

from agent_core.agent.loader import load_agent
from agent_core.agent.server_trust import ServerTrust
from agent_core.workflows.server_trust import servers_to_trust

__all__ = ["trust_servers"]


def trust_servers(agent_dir: Path) -> Path:
    """Record every server of the agent in ``agent_dir`` (its workflows' too) as trusted, as written
    now; returns ``agent_dir``."""
    agent = load_agent(agent_dir)
    ServerTrust().trust(agent.root, servers_to_trust(agent))
    return agent_dir
