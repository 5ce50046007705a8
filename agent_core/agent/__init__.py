"""Agents on disk: a folder with agent.yaml, rules/*.md and references/*.md."""

from agent_core.agent.agent import AGENT_FILE, Agent
from agent_core.agent.items import DocumentItem, DocumentKind, Problem
from agent_core.agent.loader import load_agent
from agent_core.agent.schema import AgentConfig, IncludeMode

__all__ = [
    "AGENT_FILE",
    "Agent",
    "AgentConfig",
    "DocumentItem",
    "DocumentKind",
    "IncludeMode",
    "Problem",
    "load_agent",
]
