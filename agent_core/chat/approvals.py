"""Whether a tool call needs the user's approval before it runs.

The chat's policy decides first (``allow``: never ask, ``ask``: always ask); under the default
``tool`` policy each tool's own ``permissionRequired`` setting does. A tool the user allowed
"for this chat" is not asked about again in that chat.
"""

from __future__ import annotations

from collections.abc import Collection

from agent_core.agent.schema import AgentConfig, InternalServerConfig, ToolPermissionPolicy
from agent_core.chat.prompt import ToolBinding
from agent_core.context.items import ItemRef

__all__ = ["call_target", "needs_approval", "tool_ref"]


def tool_ref(binding: ToolBinding) -> ItemRef:
    return ItemRef("tool", binding.tool, binding.server)


def needs_approval(
    binding: ToolBinding, policy: ToolPermissionPolicy, allowed_for_chat: Collection[ItemRef]
) -> bool:
    if tool_ref(binding) in allowed_for_chat:
        return False
    if policy is ToolPermissionPolicy.ALLOW:
        return False
    if policy is ToolPermissionPolicy.ASK:
        return True
    return binding.permission_required


def call_target(config: AgentConfig | None, server: str, tool: str) -> str:
    """What a call of ``server.tool`` acts on beyond its arguments, in words ("in your workspace
    folder ~/Documents"), when its server can tell; "" otherwise."""
    server_config = config.mcp_servers.get(server) if config is not None else None
    if not isinstance(server_config, InternalServerConfig):
        return ""
    # Imported here: the mcp package brings the MCP SDK (a third of a second), and the desktop
    # imports this module before its window opens.
    from agent_core.mcp.builtins import BUILTIN_SERVERS

    builtin = BUILTIN_SERVERS.get(server_config.tool)
    if builtin is None or builtin.target is None:
        return ""
    return builtin.target(server_config.options, tool)
