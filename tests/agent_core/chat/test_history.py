"""Reading a chat's saved history: where the last compaction cut it, the user's previous message,
and a title from the first one (real SQLite)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.chat.history import TITLE_LENGTH, last_user_text, split_at_summary, title_from
from agent_core.store.chats import ChatStore, StoredMessage


@pytest.fixture
def store(tmp_path: Path) -> ChatStore:
    return ChatStore(tmp_path / "chats.sqlite3")


def saved(store: ChatStore, *turns: tuple[str, str]) -> tuple[str, list[StoredMessage]]:
    session = store.create_session(agent_path="/agent")
    return session.id, [store.add_message(session.id, role, text) for role, text in turns]  # type: ignore[arg-type]


def test_without_a_summary_every_message_is_recent(store: ChatStore) -> None:
    _, messages = saved(store, ("user", "a"), ("assistant", "b"))
    recent, summary = split_at_summary(messages)
    assert summary is None and recent == messages


def test_the_latest_summary_cuts_the_history_after_what_it_covers(store: ChatStore) -> None:
    session_id, messages = saved(
        store, ("user", "q1"), ("assistant", "a1"), ("user", "q2"), ("assistant", "a2"), ("user", "q3")
    )
    store.add_message(session_id, "summary", "first note", covers_until=messages[1].id)
    latest = store.add_message(session_id, "summary", "second note", covers_until=messages[3].id)
    everything = store.messages(session_id)
    recent, summary = split_at_summary(everything)
    assert summary is not None and summary.id == latest.id and summary.content == "second note"
    assert [m.content for m in recent] == ["q3"]  # no summary among the recent ones either


def test_a_summary_without_covers_until_does_not_cut(store: ChatStore) -> None:
    session_id, _ = saved(store, ("user", "q1"), ("assistant", "a1"))
    store.add_message(session_id, "summary", "loose note")
    recent, summary = split_at_summary(store.messages(session_id))
    assert summary is None and [m.content for m in recent] == ["q1", "a1"]


def test_last_user_text_is_the_users_latest_message(store: ChatStore) -> None:
    _, messages = saved(store, ("user", "first"), ("assistant", "x"), ("user", "second"), ("assistant", "y"))
    assert last_user_text(messages) == "second"
    assert last_user_text(messages[1:2]) is None
    assert last_user_text([]) is None


def test_a_title_is_the_first_message_on_one_line() -> None:
    assert title_from("  Plan  the\n\ttrip   to Rome ") == "Plan the trip to Rome"


def test_a_long_title_is_cut_with_an_ellipsis_within_the_limit() -> None:
    title = title_from("word " * 40)
    assert len(title) <= TITLE_LENGTH and title.endswith("…")
    assert not title[:-1].endswith(" ")
    exact = "x" * TITLE_LENGTH
    assert title_from(exact) == exact
