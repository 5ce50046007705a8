"""The SQLite database behind saved chats: WAL mode and numbered, append-only migrations."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_core.errors import UserDataError

__all__ = ["MIGRATIONS", "connect"]

logger = logging.getLogger(__name__)


_M001_INITIAL = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    agent_path TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    context_items TEXT NOT NULL DEFAULT '[]',
    excluded_items TEXT NOT NULL DEFAULT '[]',
    chat_settings TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    content TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'complete',
    created_at REAL NOT NULL,
    request_context TEXT,
    tool_calls TEXT NOT NULL DEFAULT '[]',
    tool_call_id TEXT,
    error TEXT
);
CREATE INDEX messages_by_session ON messages(session_id, id);
CREATE VIRTUAL TABLE messages_fts USING fts5(content, content='messages', content_rowid='id');
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
"""

# A summary message stands for the messages up to this id (compaction).
_M002_SUMMARIES = """
ALTER TABLE messages ADD COLUMN covers_until INTEGER;
"""


def _m003_typed_chat_state(db: sqlite3.Connection) -> None:
    """One JSON column of loosely keyed chat settings becomes three typed ones, and a
    RequestContext's ``extras`` dictionary becomes its ``notes``."""
    for column, empty in (("overrides", "{}"), ("allowed_tools", "[]"), ("attached_resources", "[]")):
        db.execute(f"ALTER TABLE sessions ADD COLUMN {column} TEXT NOT NULL DEFAULT '{empty}'")
    for session_id, raw in db.execute("SELECT id, chat_settings FROM sessions").fetchall():
        legacy = _json_object(raw)
        overrides = {key: legacy[key] for key in ("chat", "selection", "context") if legacy.get(key)}
        allowed = []
        for entry in legacy.get("allowedTools", []):
            server, _, tool = str(entry).partition("/")
            allowed.append({"type": "tool", "name": tool, "server": server})
        attached = [
            {"server": e["server"], "uri": e["uri"], "text": e["text"], "title": e.get("title", "")}
            for e in dict(legacy.get("attachedResources", {})).values()
            if isinstance(e, dict) and {"server", "uri", "text"} <= e.keys()
        ]
        db.execute(
            "UPDATE sessions SET overrides = ?, allowed_tools = ?, attached_resources = ? WHERE id = ?",
            (json.dumps(overrides), json.dumps(allowed), json.dumps(attached), session_id),
        )
    db.execute("ALTER TABLE sessions DROP COLUMN chat_settings")
    rows = db.execute("SELECT id, request_context FROM messages WHERE request_context IS NOT NULL").fetchall()
    for message_id, raw in rows:
        context = _json_object(raw)
        if not context:
            continue
        extras = context.pop("extras", None) or {}
        context["notes"] = {
            topic: extras[topic] for topic in ("tools", "tool_routing", "budget") if topic in extras
        }
        db.execute("UPDATE messages SET request_context = ? WHERE id = ?", (json.dumps(context), message_id))


def _json_object(raw: str | None) -> dict[str, Any]:
    """A stored JSON object, or an empty one if the text is damaged (a migration must not stop there)."""
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


Migration = str | Callable[[sqlite3.Connection], None]

# Append only: never edit or reorder a migration that has shipped; add a new one.
MIGRATIONS: tuple[tuple[str, Migration], ...] = (
    ("initial", _M001_INITIAL),
    ("summaries", _M002_SUMMARIES),
    ("typed_chat_state", _m003_typed_chat_state),
)


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating if needed) and migrate the database at ``path``.

    Raises:
        UserDataError: the file cannot be opened, is not a ContextDesk database, or is newer than
            this version of ContextDesk.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10.0)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA synchronous=NORMAL")
        _migrate(db)
    except sqlite3.DatabaseError as error:
        raise UserDataError(
            f"cannot open the chat database {path} ({error}): if the disk is full, free space; if the "
            "file is damaged, move it away and ContextDesk will start a new one"
        ) from error
    except OSError as error:
        raise UserDataError(
            f"cannot create the chat database {path} ({error.strerror}): check that the folder is writable "
            "or set CONTEXTDESK_HOME to another folder"
        ) from error
    return db


def _migrate(db: sqlite3.Connection) -> None:
    db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
    )
    applied = {row[0] for row in db.execute("SELECT id FROM schema_migrations")}
    if applied and max(applied) > len(MIGRATIONS):
        raise UserDataError(
            f"the chat database was written by a newer ContextDesk (schema {max(applied)}, this version knows "
            f"{len(MIGRATIONS)}): update ContextDesk, or set CONTEXTDESK_HOME to use a separate folder"
        )
    for number, (name, migration) in enumerate(MIGRATIONS, start=1):
        if number in applied:
            continue
        logger.info("applying database migration %d (%s)", number, name)
        record = f"INSERT INTO schema_migrations(id, name, applied_at) VALUES ({number}, '{name}', julianday('now'));"
        try:
            if isinstance(migration, str):
                # One script so the schema change and its record commit together or not at all
                # (executescript would commit a transaction opened outside it).
                db.executescript(f"BEGIN IMMEDIATE;\n{migration}\n{record}\nCOMMIT;")
            else:
                db.execute("BEGIN IMMEDIATE")
                migration(db)
                db.execute(record)
                db.execute("COMMIT")
        except sqlite3.Error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
