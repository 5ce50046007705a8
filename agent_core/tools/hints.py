"""What a server says about a tool's effects (MCP tool annotations), as a plain value.

Kept apart from ``agent_core.mcp`` so the chat and the desktop's context rows use it without
loading the MCP SDK.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ToolAnnotations"]


@dataclass(frozen=True)
class ToolAnnotations:
    """What a server says about a tool's effects. Hints only: an untrusted server may lie, so
    they can make ContextDesk more careful (a destructive tool is asked about), never less."""

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None

    @property
    def is_destructive(self) -> bool:
        """Marked destructive (the protocol ignores ``destructiveHint`` on a read-only tool)."""
        return self.destructive is True and self.read_only is not True

    @property
    def badges(self) -> tuple[str, ...]:
        """Short words for the tool's row: "read-only", "destructive", "idempotent", "open-world"."""
        marks = (
            (self.read_only is True, "read-only"),
            (self.is_destructive, "destructive"),
            (self.idempotent is True and self.read_only is not True, "idempotent"),
            (self.open_world is True, "open-world"),
        )
        return tuple(word for shown, word in marks if shown)
