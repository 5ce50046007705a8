"""The terminal's word on a tool call that has a UI (MCP Apps): the terminal shows the text result,
and says where the UI can be seen."""

from __future__ import annotations

__all__ = ["ui_available"]


def ui_available(server: str, tool: str, resource_uri: str) -> str:
    """One line: ``server.tool`` has a UI, shown in the desktop app."""
    return (
        f"[{server}.{tool} has a UI ({resource_uri}): open this chat in the ContextDesk desktop app "
        "to see it; the terminal shows its text result]"
    )
