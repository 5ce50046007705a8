"""Trust of the servers a workflow's assistants start (``assistants[].mcp_servers``).

A workflow file may come from someone else (a cloned project, a CodeMie import) just as agent.yaml
may: its servers start only once the user trusts what they run (``agent_core.agent.server_trust``).
What is trusted is the server as the file writes it, before values from the context store are
filled in, under a name that says where it is and what it runs: ``workflow ASSISTANT/SERVER #FINGERPRINT``.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_core.agent.agent import Agent
from agent_core.agent.schema import McpServerConfig, StdioServerConfig
from agent_core.agent.server_trust import TrustGate, fingerprint
from agent_core.workflows.errors import WorkflowError
from agent_core.workflows.loader import Workflow
from agent_core.workflows.schema import WorkflowAssistantConfig, WorkflowMcpServer

__all__ = ["check_trusted", "servers_to_trust", "workflow_servers", "written_server"]


def written_server(entry: WorkflowMcpServer, agent: Agent) -> StdioServerConfig | None:
    """The server of ``entry`` as written (templates not filled in); None when it names no command."""
    found = agent.config.mcp_servers.get(entry.name)
    base = found if isinstance(found, StdioServerConfig) else None
    command = entry.config.command or (base.command if base is not None else None)
    if command is None:
        return None
    return StdioServerConfig(
        command=command,
        args=list(entry.config.args if entry.config.args is not None else (base.args if base else [])),
        env={**(base.env if base else {}), **entry.config.env},
        cwd=base.cwd if base is not None and entry.config.command is None else None,
    )


def _trust_name(
    assistant: WorkflowAssistantConfig, entry: WorkflowMcpServer, config: StdioServerConfig
) -> str:
    return f"workflow {assistant.id}/{entry.name} #{fingerprint(config)[:8]}"


def workflow_servers(
    agent: Agent, workflows: Iterable[Workflow] | None = None
) -> dict[str, StdioServerConfig]:
    """Every server of the assistants of ``workflows`` (default: the agent's), as written, by its
    trust name."""
    servers: dict[str, StdioServerConfig] = {}
    for workflow in agent.workflows.values() if workflows is None else workflows:
        for assistant in workflow.spec.assistants:
            for entry in assistant.mcp_servers:
                config = written_server(entry, agent)
                if config is not None:
                    servers[_trust_name(assistant, entry, config)] = config
    return servers


def servers_to_trust(agent: Agent) -> dict[str, McpServerConfig]:
    """Every server of ``agent`` that needs the user's trust to start: agent.yaml's and its
    workflows' assistants'."""
    return {**agent.config.mcp_servers, **workflow_servers(agent)}


def check_trusted(
    assistant: WorkflowAssistantConfig, entry: WorkflowMcpServer, agent: Agent, where: str
) -> None:
    """Raises: WorkflowError: the user has not trusted the server as written."""
    config = written_server(entry, agent)
    if config is None or TrustGate(agent.root).allows(_trust_name(assistant, entry, config), config):
        return
    raise WorkflowError(
        f"{where}: the MCP server '{entry.name}' of the assistant '{assistant.id}' is not trusted, so it "
        f"was not started. Fix: check what it runs and trust it with `contextdesk agent trust "
        f"{agent.root}` (it lists the workflows' servers too), or from the desktop app's question when "
        "the agent opens"
    )
