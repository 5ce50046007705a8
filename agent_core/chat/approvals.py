"""Whether a tool call needs the user's approval before it runs, and what the question says.

The chat's policy decides first (``allow``: never ask, ``ask``: always ask); under the default
``tool`` policy each tool's own ``permissionRequired`` setting does. A tool the user allowed
"for this chat" is not asked about again in that chat. The question names what the call acts on
and, when the tool's server marks it destructive, says so. Chats, sub-agents and workflow tool
states all ask through here.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from agent_core.agent.schema import AgentConfig, InternalServerConfig, ToolPermissionPolicy
from agent_core.chat.events import ApprovalRequest
from agent_core.chat.prompt import ToolBinding
from agent_core.context.items import ItemRef
from agent_core.tools.runtime import HintedTool, ToolDescriptor

__all__ = [
    "DESTRUCTIVE_CAUTION",
    "asks_first",
    "call_target",
    "caution",
    "needs_approval",
    "tool_approval",
    "tool_ref",
]

DESTRUCTIVE_CAUTION = "Its server marks this tool destructive: it may delete or overwrite data."


def tool_ref(binding: ToolBinding) -> ItemRef:
    return ItemRef("tool", binding.tool, binding.server)


def needs_approval(
    binding: ToolBinding, policy: ToolPermissionPolicy, allowed_for_chat: Collection[ItemRef]
) -> bool:
    return asks_first(tool_ref(binding), binding.permission_required, policy, allowed_for_chat)


def asks_first(
    tool: ItemRef,
    permission_required: bool,
    policy: ToolPermissionPolicy,
    allowed_for_chat: Collection[ItemRef],
) -> bool:
    """Whether a call of ``tool`` (whose own setting is ``permission_required``) waits for the
    user under ``policy``, given the tools allowed for the rest of the chat."""
    if tool in allowed_for_chat:
        return False
    if policy is ToolPermissionPolicy.ALLOW:
        return False
    if policy is ToolPermissionPolicy.ASK:
        return True
    return permission_required


def tool_approval(
    call_id: str,
    server: str,
    tool: str,
    arguments: Mapping[str, Any],
    *,
    config: AgentConfig | None,
    tools: Iterable[ToolDescriptor],
    origin: str = "",
) -> ApprovalRequest:
    """The question for one call of ``server.tool``: with what it acts on (``config``'s word on
    its server) and the caution its server's annotations call for (among ``tools``)."""
    return ApprovalRequest(
        call_id=call_id,
        server=server,
        tool=tool,
        arguments=arguments,
        origin=origin,
        target=call_target(config, server, tool),
        caution=caution(tools, server, tool),
    )


def caution(tools: Iterable[ToolDescriptor], server: str, tool: str) -> str:
    """What the user should know before allowing ``server.tool``: its server's own word that it
    is destructive (tool annotations); "" when it says nothing of the kind."""
    for descriptor in tools:
        if descriptor.server == server and descriptor.name == tool:
            if isinstance(descriptor, HintedTool) and descriptor.annotations.is_destructive:
                return DESTRUCTIVE_CAUTION
            return ""
    return ""


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
