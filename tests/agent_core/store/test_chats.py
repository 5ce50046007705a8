"""Saved chats: everything a reply used survives a restart, and a killed reply is kept, marked."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent_core.context.items import (
    ItemRef,
    NearMiss,
    RequestContext,
    RequestItem,
    SelectionRun,
    SessionItem,
    TokenUsage,
)
from agent_core.database.connection import connect
from agent_core.database.migrations import MIGRATIONS
from agent_core.errors import UserDataError
from agent_core.store.chat_state import AttachedResource, ChatOverrides
from agent_core.store.chats import ChatStore, ToolCallRecord


@pytest.fixture
def store(tmp_path: Path) -> ChatStore:
    return ChatStore(tmp_path / "chats.sqlite3")


def sample_context() -> RequestContext:
    return RequestContext(
        items=(
            RequestItem(ItemRef("rule", "clear-answers"), "always"),
            RequestItem(ItemRef("reference", "pricing"), "manual"),
            RequestItem(ItemRef("tool", "get_current_time", "time"), "agent", 0.8123),
        ),
        model="scripted:test",
        selection=SelectionRun(top_k=20, top_n=5, include_score=0.7, elapsed_ms=12.5),
        near_misses=(NearMiss(ItemRef("reference", "faq"), 0.41, "below_floor"),),
        usage=TokenUsage(input_tokens=120, output_tokens=30),
    )


def test_a_session_and_its_messages_reopen_identically(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    first = ChatStore(path)
    items = (
        SessionItem(ItemRef("rule", "clear-answers"), "always"),
        SessionItem(ItemRef("tool", "x", "srv"), "manual"),
    )
    session = first.create_session(
        agent_path="/agents/a",
        title="Pricing",
        context_items=items,
        overrides=ChatOverrides(chat={"temperature": 0.2}),
    )
    user = first.add_message(session.id, "user", "What does the Team plan cost?")
    call = ToolCallRecord(
        id="c1",
        server="time",
        tool="get_current_time",
        arguments={"timezone": "UTC"},
        result="12:00",
        elapsed_seconds=0.05,
        approval="allowed_once",
    )
    reply = first.add_message(
        session.id, "assistant", "$29 a month.", request_context=sample_context(), tool_calls=(call,)
    )
    first.close()

    second = ChatStore(path)
    assert second.session(session.id) == second.sessions()[0]
    reopened = second.session(session.id)
    assert reopened is not None
    assert reopened.context_items == items
    assert reopened.overrides == ChatOverrides(chat={"temperature": 0.2})
    second.update_session(
        session.id,
        allowed_tools=(ItemRef("tool", "x", "srv"),),
        attached_resources=(AttachedResource("docs", "file:///a.txt", "A", "Title"),),
    )
    updated = second.session(session.id)
    assert updated is not None
    assert updated.allowed_tools == (ItemRef("tool", "x", "srv"),)
    assert updated.attached_resources == (AttachedResource("docs", "file:///a.txt", "A", "Title"),)
    assert second.messages(session.id) == [user, reply]
    assert second.messages(session.id)[1].request_context == sample_context()


def test_sessions_list_most_recently_used_first_and_delete_removes_messages(store: ChatStore) -> None:
    older = store.create_session(title="older")
    newer = store.create_session(title="newer")
    store.add_message(older.id, "user", "bump")
    assert [s.title for s in store.sessions()] == ["older", "newer"]
    store.delete_session(older.id)
    assert [s.id for s in store.sessions()] == [newer.id]
    assert store.messages(older.id) == []
    assert store.search("bump") == []


def test_renaming_or_changing_a_chat_keeps_its_place_which_only_messages_change(store: ChatStore) -> None:
    older = store.create_session(title="older")
    newer = store.create_session(title="newer")
    store.add_message(newer.id, "user", "hello")
    store.update_session(older.id, title="renamed", overrides=ChatOverrides(chat={"temperature": 0.1}))
    assert [s.title for s in store.sessions()] == ["newer", "renamed"]
    store.add_message(older.id, "user", "back again")
    assert [s.title for s in store.sessions()] == ["renamed", "newer"]


def test_full_text_search_finds_words_by_prefix_and_ignores_query_syntax(store: ChatStore) -> None:
    session = store.create_session(title="Deploys")
    store.add_message(session.id, "user", "How do I roll back the staging deployment?")
    store.add_message(session.id, "assistant", "Run the rollback job.")
    hits = store.search("deploy")
    assert [(h.session_title, h.role) for h in hits] == [("Deploys", "user")]
    assert "[deployment]" in hits[0].snippet
    assert store.search('rollback" OR "x') == []  # quotes cannot break out of the phrase
    assert store.search("   ") == []


def test_edited_content_is_searchable_under_its_new_text(store: ChatStore) -> None:
    session = store.create_session()
    message = store.add_message(session.id, "assistant", "", status="streaming")
    store.update_message(message, content="kubernetes answer", status="complete")
    assert [h.message_id for h in store.search("kubernetes")] == [message.id]


def test_a_reply_killed_mid_stream_is_kept_and_marked_partial(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        from pathlib import Path
        from agent_core.store.chats import ChatStore
        store = ChatStore(Path({str(path)!r}))
        session = store.create_session(title="killed")
        store.add_message(session.id, "user", "tell me a story")
        reply = store.add_message(session.id, "assistant", "", status="streaming")
        store.update_message(reply, content="Once upon a time")
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == -signal.SIGKILL, result.stderr
    store = ChatStore(path)
    assert store.recover_interrupted() == 1
    [session] = store.sessions()
    user, reply = store.messages(session.id)
    assert user.content == "tell me a story" and user.status == "complete"
    assert (reply.content, reply.status) == ("Once upon a time", "partial")
    assert store.recover_interrupted() == 0


def test_migrations_run_once_and_a_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    connect(path).close()
    db = connect(path)
    assert [row[0] for row in db.execute("SELECT id FROM schema_migrations")] == list(
        range(1, len(MIGRATIONS) + 1)
    )
    db.execute("INSERT INTO schema_migrations(id, name, applied_at) VALUES (999, 'future', 0)")
    db.close()
    with pytest.raises(UserDataError, match="newer ContextDesk"):
        connect(path)


def test_a_file_that_is_not_a_database_gets_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(UserDataError, match="move it away"):
        connect(path)


def test_the_database_uses_wal_so_readers_do_not_block_the_writer(store: ChatStore) -> None:
    reader = sqlite3.connect(store.path)
    assert reader.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM messages").fetchone()
    session = store.create_session()
    store.add_message(session.id, "user", "written while a reader holds a snapshot")
    reader.rollback()
    reader.close()


def test_sub_agent_chats_hang_under_their_parent_and_go_with_it(store: ChatStore) -> None:
    from agent_core.store.chats import ChildLink

    parent = store.create_session(title="parent")
    question = store.add_message(parent.id, "user", "look it up")
    child = store.create_session(
        title="child", parent=ChildLink(parent.id, question.id, "call-1", "researcher")
    )
    grandchild = store.create_session(parent=ChildLink(child.id, None, "call-2", "reader"))
    store.add_message(grandchild.id, "user", "read it")
    assert [s.id for s in store.sessions()] == [parent.id]  # the user's chats only
    assert [s.id for s in store.children(parent.id)] == [child.id]
    reopened = store.session(child.id)
    assert reopened is not None and reopened.parent == ChildLink(
        parent.id, question.id, "call-1", "researcher"
    )
    store.delete_session(parent.id)
    assert store.session(child.id) is None and store.session(grandchild.id) is None
    assert store.messages(grandchild.id) == []
