"""The schema of the app's database: numbered, append-only migrations, some of them in Python."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from typing import Any

from agent_core.errors import UserDataError

__all__ = ["MIGRATIONS", "migrate"]

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


# One writer per chat: the program writing to a chat holds its lease (see ChatStore).
_M004_CHAT_LEASES = """
CREATE TABLE chat_leases (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    holder TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    heartbeat REAL NOT NULL
);
"""


# Long-term memories (agent_core.memory) and the append-only history of every change to them.
_M005_MEMORIES = """
CREATE TABLE memories (
    id TEXT PRIMARY KEY,
    text TEXT NOT NULL,
    kind TEXT NOT NULL DEFAULT 'fact',
    scope TEXT NOT NULL,
    tier TEXT NOT NULL,
    status TEXT NOT NULL,
    importance INTEGER NOT NULL DEFAULT 3,
    agent TEXT NOT NULL DEFAULT '',
    session_id TEXT,
    source_session TEXT,
    source_message INTEGER,
    speaker TEXT NOT NULL DEFAULT 'user',
    quote TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    last_used_at REAL,
    use_count INTEGER NOT NULL DEFAULT 0,
    seen_count INTEGER NOT NULL DEFAULT 1,
    expires_at REAL,
    superseded_by TEXT,
    supersedes TEXT,
    embedding_model TEXT,
    embedding BLOB
);
CREATE INDEX memories_by_owner ON memories(agent, scope, status);
CREATE TABLE memory_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id TEXT NOT NULL,
    event TEXT NOT NULL,
    actor TEXT NOT NULL,
    at REAL NOT NULL,
    old_text TEXT,
    new_text TEXT,
    detail TEXT NOT NULL DEFAULT ''
);
CREATE INDEX memory_events_by_memory ON memory_events(memory_id, id);
"""


# Sub-agents' chats: a child chat points at the parent chat, message and tool call that started it.
_M006_CHILD_CHATS = """
ALTER TABLE sessions ADD COLUMN parent_session_id TEXT;
ALTER TABLE sessions ADD COLUMN parent_message_id INTEGER;
ALTER TABLE sessions ADD COLUMN parent_call_id TEXT;
ALTER TABLE sessions ADD COLUMN subagent TEXT;
CREATE INDEX sessions_by_parent ON sessions(parent_session_id);
"""


# Workflow runs: every state of every run (failed ones too), to show, debug and re-run from.
_M007_WORKFLOW_RUNS = """
CREATE TABLE workflow_runs (
    id TEXT PRIMARY KEY,
    agent_path TEXT NOT NULL,
    workflow TEXT NOT NULL,
    status TEXT NOT NULL,
    input TEXT NOT NULL DEFAULT '{}',
    store TEXT NOT NULL DEFAULT '{}',
    mocked INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    started_at REAL NOT NULL,
    finished_at REAL
);
CREATE INDEX workflow_runs_by_agent ON workflow_runs(agent_path, started_at);
CREATE TABLE workflow_steps (
    run_id TEXT NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (run_id, position)
);
"""

# Selection learned from the user: an item added to a chat right after a message (it was needed)
# or removed from that message's reply (it was not), per agent.
_M008_SELECTION_FEEDBACK = """
CREATE TABLE selection_feedback (
    id INTEGER PRIMARY KEY,
    agent_path TEXT NOT NULL,
    item_key TEXT NOT NULL,
    message TEXT NOT NULL,
    added INTEGER NOT NULL,
    session_id TEXT,
    created_at REAL NOT NULL
);
CREATE INDEX selection_feedback_by_agent ON selection_feedback(agent_path, created_at);
"""

# Regenerate and edit-and-resend keep the answers (and the edited message) they replace:
# replaced messages stay readable but leave the conversation the model is sent.
_M009_REPLACED_MESSAGES = """
ALTER TABLE messages ADD COLUMN replaced INTEGER NOT NULL DEFAULT 0;
"""


# The exact request each model turn sent (credentials masked, bounded in size), for View Context.
# Its own table, read only when asked for, so that loading a chat never reads the requests.
_M010_SENT_REQUESTS = """
CREATE TABLE sent_requests (
    message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
    request TEXT NOT NULL
);
"""

# A workflow run names the program running it (host and pid): a run left 'running' by a program
# that has ended (a crash, a kill) is marked 'interrupted' when the run store is next opened.
_M011_WORKFLOW_RUN_OWNER = """
ALTER TABLE workflow_runs ADD COLUMN host TEXT;
ALTER TABLE workflow_runs ADD COLUMN pid INTEGER;
"""

# Edit keeps the edited message's versions as branches: ``parent_id`` is the message before each
# one in its conversation (0 for a chat's first message; NULL for messages saved before this), and
# ``aside`` numbers the edit or switch that set a branch aside (0: not set aside), so the branch
# a switch brings back is exactly the messages set aside together.
_M012_MESSAGE_BRANCHES = """
ALTER TABLE messages ADD COLUMN parent_id INTEGER;
ALTER TABLE messages ADD COLUMN aside INTEGER NOT NULL DEFAULT 0;
"""


Migration = str | Callable[[sqlite3.Connection], None]

# Append only: never edit or reorder a migration that has shipped; add a new one.
MIGRATIONS: tuple[tuple[str, Migration], ...] = (
    ("initial", _M001_INITIAL),
    ("summaries", _M002_SUMMARIES),
    ("typed_chat_state", _m003_typed_chat_state),
    ("chat_leases", _M004_CHAT_LEASES),
    ("memories", _M005_MEMORIES),
    ("child_chats", _M006_CHILD_CHATS),
    ("workflow_runs", _M007_WORKFLOW_RUNS),
    ("selection_feedback", _M008_SELECTION_FEEDBACK),
    ("replaced_messages", _M009_REPLACED_MESSAGES),
    ("sent_requests", _M010_SENT_REQUESTS),
    ("workflow_run_owner", _M011_WORKFLOW_RUN_OWNER),
    ("message_branches", _M012_MESSAGE_BRANCHES),
)


def migrate(db: sqlite3.Connection, upto: int | None = None) -> None:
    """Apply the migrations ``db`` lacks, up to number ``upto`` (default: all)."""
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
        if number in applied or (upto is not None and number > upto):
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
