"""How a tool call ended, in the words and tone every view of it uses (the chat's tool rows, View
Context): a call the user denied is their choice, shown in amber as "denied by you", not as a
failure in red."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agent_core.store.chats import ToolCallRecord

__all__ = ["TOOL_STATUS_TEXT", "Tone", "ToolCallOutcome", "tone_of"]

#: A tool row's status: the call's place in the reply, or how it ended.
TOOL_STATUS_TEXT = {
    "running": "running…",
    "pending": "waiting",
    "done": "done",
    "failed": "failed",
    "denied": "denied by you",
    "cancelled": "stopped",
}

Tone = Literal["normal", "warning", "error"]


@dataclass(frozen=True)
class ToolCallOutcome:
    """One call of a reply and its status (a key of ``TOOL_STATUS_TEXT``), as its row shows it."""

    record: ToolCallRecord
    status: str

    @property
    def status_text(self) -> str:
        """The status in words; a call its tool never answered says how it ended instead
        ("timed out after 8 s", "failed: …"), and a stopped one says "stopped"."""
        ended = self.record.ended
        if ended and self.status in ("failed", "done"):
            return ended
        return TOOL_STATUS_TEXT.get(self.status, self.status)


def tone_of(status: str) -> Tone:
    """Red for a failure; amber for a call the user denied; plain otherwise."""
    return "error" if status == "failed" else "warning" if status == "denied" else "normal"
