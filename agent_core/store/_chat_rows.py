"""Rows of the chat tables and the records they hold: the JSON columns' shapes, both ways."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TypeVar

from pydantic import TypeAdapter

from agent_core.context.items import ItemRef, RequestContext, SessionItem
from agent_core.store.chat_state import AttachedResource, ChatOverrides
from agent_core.store.records import ChildLink, StoredMessage, StoredSession, ToolCallRecord

__all__ = [
    "ATTACHED",
    "CALLS",
    "CONTEXT",
    "ITEMS",
    "OVERRIDES",
    "REFS",
    "message_of",
    "or_none",
    "session_of",
]

_T = TypeVar("_T")

CONTEXT = TypeAdapter(RequestContext)
ITEMS = TypeAdapter(tuple[SessionItem, ...])
REFS = TypeAdapter(tuple[ItemRef, ...])
CALLS = TypeAdapter(tuple[ToolCallRecord, ...])
OVERRIDES = TypeAdapter(ChatOverrides)
ATTACHED = TypeAdapter(tuple[AttachedResource, ...])


def or_none(read: Callable[[sqlite3.Row], _T], row: sqlite3.Row) -> _T | None:
    """A salvaged row, or None when its stored JSON is damaged too."""
    try:
        return read(row)
    except ValueError:  # pydantic's ValidationError is one
        return None


def session_of(row: sqlite3.Row) -> StoredSession:
    return StoredSession(
        id=row["id"],
        title=row["title"],
        agent_path=row["agent_path"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        context_items=ITEMS.validate_json(row["context_items"]),
        excluded_items=REFS.validate_json(row["excluded_items"]),
        overrides=OVERRIDES.validate_json(row["overrides"]),
        allowed_tools=REFS.validate_json(row["allowed_tools"]),
        attached_resources=ATTACHED.validate_json(row["attached_resources"]),
        parent=None
        if row["parent_session_id"] is None
        else ChildLink(
            row["parent_session_id"],
            row["parent_message_id"],
            row["parent_call_id"] or "",
            row["subagent"] or "",
        ),
    )


def message_of(row: sqlite3.Row) -> StoredMessage:
    context = row["request_context"]
    return StoredMessage(
        id=row["id"],
        session_id=row["session_id"],
        role=row["role"],
        content=row["content"],
        status=row["status"],
        created_at=row["created_at"],
        request_context=None if context is None else CONTEXT.validate_json(context),
        tool_calls=CALLS.validate_json(row["tool_calls"]),
        tool_call_id=row["tool_call_id"],
        error=row["error"],
        covers_until=row["covers_until"],
        replaced=bool(row["replaced"]),
        parent_id=row["parent_id"],
        aside=row["aside"],
    )
