"""Reading a chat's saved history: where the last compaction cut it, the user's previous
message, a title from the first one."""

from __future__ import annotations

from collections.abc import Sequence

from agent_core.store.chats import StoredMessage

__all__ = ["last_user_text", "split_at_summary", "title_from"]

TITLE_LENGTH = 60


def split_at_summary(messages: Sequence[StoredMessage]) -> tuple[list[StoredMessage], StoredMessage | None]:
    """The messages after the latest compaction, and that compaction's summary (if any)."""
    summary = next(
        (m for m in reversed(messages) if m.role == "summary" and m.covers_until is not None), None
    )
    if summary is None:
        return [m for m in messages if m.role != "summary"], None
    assert summary.covers_until is not None
    return [m for m in messages if m.id > summary.covers_until and m.role != "summary"], summary


def last_user_text(history: Sequence[StoredMessage]) -> str | None:
    """The user's previous message, which short follow-ups take their topic from."""
    return next((m.content for m in reversed(history) if m.role == "user"), None)


def title_from(text: str) -> str:
    """A chat title from its first message: one line, at most TITLE_LENGTH characters."""
    line = " ".join(text.split())
    return line if len(line) <= TITLE_LENGTH else line[: TITLE_LENGTH - 1].rstrip() + "…"
