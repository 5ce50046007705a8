"""MCP clients: the agent's tool servers, started, watched and called through one manager.

Needs the ``mcp`` extra (``pip install 'contextdesk[mcp]'``).
"""

from agent_core.mcp._connection import StatusListener
from agent_core.mcp.builtins import BUILTIN_SERVERS
from agent_core.mcp.errors import McpServerError, McpServerNotReadyError, UnknownServerError
from agent_core.mcp.manager import McpManager, inspect_servers
from agent_core.mcp.roots import agent_roots
from agent_core.mcp.settings import EffectiveToolSettings, effective_tool_settings
from agent_core.mcp.types import (
    ContentPart,
    PromptArgument,
    PromptInfo,
    PromptMessage,
    PromptResult,
    ResourceContent,
    ResourceInfo,
    ResourcePart,
    ServerState,
    ServerStatus,
    ToolAnnotations,
    ToolDescription,
    ToolInfo,
    ToolPermission,
    ToolResult,
    tool_fingerprint,
)

__all__ = [
    "BUILTIN_SERVERS",
    "ContentPart",
    "EffectiveToolSettings",
    "McpManager",
    "McpServerError",
    "McpServerNotReadyError",
    "PromptArgument",
    "PromptInfo",
    "PromptMessage",
    "PromptResult",
    "ResourceContent",
    "ResourceInfo",
    "ResourcePart",
    "ServerState",
    "ServerStatus",
    "StatusListener",
    "ToolAnnotations",
    "ToolDescription",
    "ToolInfo",
    "ToolPermission",
    "ToolResult",
    "UnknownServerError",
    "agent_roots",
    "effective_tool_settings",
    "inspect_servers",
    "tool_fingerprint",
]
