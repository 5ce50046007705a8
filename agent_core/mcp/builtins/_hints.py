"""What the built-in servers' tools tell a client about themselves (MCP tool annotations)."""

from __future__ import annotations

from mcp.types import ToolAnnotations

__all__ = ["READ_ONLY"]

#: Reads and changes nothing, the same answer for the same arguments, nothing outside the machine.
READ_ONLY = ToolAnnotations(
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False
)
