"""Why an MCP App cannot be shown, or a view's request was refused."""

from __future__ import annotations

from agent_core.mcp.errors import McpServerError

__all__ = ["AppCallDenied", "AppUnavailableError"]


class AppUnavailableError(McpServerError):
    """A tool's UI cannot be shown (no UI, server gone, resource missing, wrong type, too big); the
    message says why and what to do. The tool's text result is still there to show."""


class AppCallDenied(McpServerError):
    """A view's ``tools/call`` was not run: the user denied it, or the rules do not let a view
    call that tool. The message says which (the view gets it as a JSON-RPC error)."""
