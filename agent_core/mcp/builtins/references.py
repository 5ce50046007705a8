"""The ``references`` built-in: lets a model list the agent's references and pull one on demand."""

from __future__ import annotations

from collections.abc import Mapping

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from agent_core import __version__
from agent_core.mcp.builtins import BuiltinContext, OptionValue
from agent_core.mcp.builtins._hints import READ_ONLY

__all__ = ["build_references_server"]


def build_references_server(context: BuiltinContext, options: Mapping[str, OptionValue]) -> MCPServer:
    """An MCP server over ``context.references``, read afresh on every call so edits show at once."""
    server = MCPServer(
        "contextdesk-references",
        version=__version__,
        instructions="The agent's reference documents. List them, then read the ones you need.",
    )

    @server.tool(
        annotations=READ_ONLY,
        description="List the agent's reference documents: one line per document, name: description.",
    )
    def list_references() -> str:
        references = context.references()
        if not references:
            return "This agent has no references."
        return "\n".join(
            f"{item.name}: {item.description}" if item.description else item.name
            for item in sorted(references.values(), key=lambda i: (i.priority_level, i.name.lower()))
        )

    @server.tool(
        annotations=READ_ONLY,
        description="Read one of the agent's reference documents by its name (see list_references).",
    )
    def read_reference(name: str) -> str:
        references = context.references()
        item = references.get(name) or next(
            (i for i in references.values() if i.name.lower() == name.strip().lower()), None
        )
        if item is None:
            known = ", ".join(sorted(references)) or "none"
            raise ToolError(f"No reference named '{name}'. Available references: {known}.")
        return item.text

    return server
