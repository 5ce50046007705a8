"""Whether a tool call needs the user's approval before it runs, and what the question says.

The chat's policy decides first (``allow``: never ask, ``ask``: always ask); under the default
``tool`` policy each tool's own ``permissionRequired`` setting does. A tool the user allowed
"for this chat" is not asked about again in that chat. The question names what the call acts on
and, when the tool's server marks it destructive, says so. Chats, sub-agents and workflow tool
states all ask through here.

A few tools are asked about before EVERY call, whatever the policy, the tool's settings or a
skill's ``allowed-tools`` say, and "allow for this chat" does not apply to them: a built-in
server's ``always_ask_tools`` (a skill's ``run_script``). Both the tool's descriptor (from the
server's own settings) and the agent's config can say so; either is enough (fail closed).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from agent_core.agent.schema import AgentConfig, InternalServerConfig, ToolPermissionPolicy
from agent_core.chat.events import ApprovalRequest
from agent_core.chat.prompt import ToolBinding
from agent_core.context.items import ItemRef
from agent_core.context.skill_server import agent_servers
from agent_core.tools.runtime import GuardedTool, HintedTool, ToolDescriptor

if TYPE_CHECKING:
    from agent_core.agent.agent import Agent

__all__ = [
    "DESTRUCTIVE_CAUTION",
    "asks_every_call",
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
    binding: ToolBinding,
    policy: ToolPermissionPolicy,
    allowed_for_chat: Collection[ItemRef],
    *,
    every_call: bool,
) -> bool:
    return asks_first(
        tool_ref(binding), binding.permission_required, policy, allowed_for_chat, every_call=every_call
    )


def asks_first(
    tool: ItemRef,
    permission_required: bool,
    policy: ToolPermissionPolicy,
    allowed_for_chat: Collection[ItemRef],
    *,
    every_call: bool,
) -> bool:
    """Whether a call of ``tool`` (whose own setting is ``permission_required``) waits for the
    user under ``policy``, given the tools allowed for the rest of the chat; ``every_call``
    (``asks_every_call``): always."""
    if every_call:
        return True
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
    agent: Agent | None,
    tools: Iterable[ToolDescriptor],
    origin: str = "",
) -> ApprovalRequest:
    """The question for one call of ``server.tool``: with what it acts on (its server's word,
    through ``agent``'s config), the caution its server's annotations call for (among ``tools``),
    and whether it is asked about every time."""
    offered = list(tools)
    return ApprovalRequest(
        call_id=call_id,
        server=server,
        tool=tool,
        arguments=arguments,
        origin=origin,
        target=call_target(agent, server, tool, arguments),
        caution=caution(offered, server, tool),
        every_call=asks_every_call(agent.config if agent else None, offered, server, tool),
    )


def asks_every_call(
    config: AgentConfig | None, tools: Iterable[ToolDescriptor], server: str, tool: str
) -> bool:
    """Whether every call of ``server.tool`` is asked about, whatever the policy: its descriptor
    (among ``tools``) or its built-in server in ``config`` says so."""
    if any(
        d.server == server and d.name == tool and isinstance(d, GuardedTool) and d.asks_every_call
        for d in tools
    ):
        return True
    server_config = config.mcp_servers.get(server) if config is not None else None
    if not isinstance(server_config, InternalServerConfig):
        return False
    from agent_core.mcp.builtins import always_asks  # the MCP SDK: see call_target

    return always_asks(server_config.tool, tool)


def caution(tools: Iterable[ToolDescriptor], server: str, tool: str) -> str:
    """What the user should know before allowing ``server.tool``: its server's own word that it
    is destructive (tool annotations); "" when it says nothing of the kind."""
    for descriptor in tools:
        if descriptor.server == server and descriptor.name == tool:
            if isinstance(descriptor, HintedTool) and descriptor.annotations.is_destructive:
                return DESTRUCTIVE_CAUTION
            return ""
    return ""


def call_target(agent: Agent | None, server: str, tool: str, arguments: Mapping[str, Any]) -> str:
    """What a call of ``server.tool`` with ``arguments`` acts on, in words ("in your workspace
    folder ~/Documents", a script's command line), when its server can tell; "" otherwise."""
    # agent_servers: agent.yaml's servers plus the skills built-in an agent with skills runs unasked.
    server_config = agent_servers(agent).get(server) if agent is not None else None
    if agent is None or not isinstance(server_config, InternalServerConfig):
        return ""
    # Imported here: the mcp package brings the MCP SDK (a third of a second), and the desktop
    # imports this module before its window opens.
    from agent_core.mcp.builtins import BUILTIN_SERVERS, BuiltinContext, PendingCall
    from agent_core.mcp.roots import agent_roots

    builtin = BUILTIN_SERVERS.get(server_config.tool)
    if builtin is None or builtin.target is None:
        return ""
    # What the running server sees of the agent (the workspace passes the same).
    folders = agent_roots(agent.config)
    context = BuiltinContext(skills=lambda: agent.skills, workspace_folders=lambda: folders)
    return builtin.target(PendingCall(tool, arguments, server_config.options, context))
