"""Which tool server gives a chat its agent's skills on demand: the built-in ``skills`` server.

Every agent with an enabled skill gets it without a line in agent.yaml (a catalogue line the model
cannot load would be useless), under the name ``skills``. Writing the server in agent.yaml
(``mcpServers: {skills: {type: internal, tool: skills}}``) takes its place: that is how to turn
it off (``enabled: false``) or change its tools' settings.
"""

from __future__ import annotations

from agent_core.agent.agent import Agent
from agent_core.agent.schema import AgentConfig, InternalServerConfig, McpServerConfig

__all__ = [
    "LOAD_TOOL",
    "SKILLS_BUILTIN",
    "SKILLS_SERVER",
    "agent_servers",
    "skills_servers",
]

#: The built-in's kind (``tool:`` of an internal server) and the name it gets when implicit.
SKILLS_BUILTIN = "skills"
SKILLS_SERVER = "skills"
_FALLBACK_NAME = "agent-skills"  # when the agent already has another server named "skills"
#: The tool that gives the model a skill's body.
LOAD_TOOL = "load"


def _declared(config: AgentConfig) -> bool:
    return any(
        isinstance(server, InternalServerConfig) and server.tool == SKILLS_BUILTIN
        for server in config.mcp_servers.values()
    )


def _implicit_name(config: AgentConfig) -> str:
    return SKILLS_SERVER if SKILLS_SERVER not in config.mcp_servers else _FALLBACK_NAME


def agent_servers(agent: Agent) -> dict[str, McpServerConfig]:
    """The agent's tool servers as a chat runs them: agent.yaml's, plus the ``skills`` built-in
    when the agent has an enabled skill and agent.yaml does not declare the built-in itself."""
    servers: dict[str, McpServerConfig] = dict(agent.config.mcp_servers)
    if _declared(agent.config) or not any(skill.enabled for skill in agent.skills.values()):
        return servers
    servers[_implicit_name(agent.config)] = InternalServerConfig(type="internal", tool=SKILLS_BUILTIN)
    return servers


def skills_servers(config: AgentConfig) -> set[str]:
    """The names the ``skills`` built-in may run under in this agent: the declared ones, or else
    the implicit one's."""
    names = {
        name
        for name, server in config.mcp_servers.items()
        if isinstance(server, InternalServerConfig) and server.tool == SKILLS_BUILTIN
    }
    return names or {_implicit_name(config)}
