"""Edit keeps the edited message's versions as branches: each version with the replies that
followed it, one shown at a time, switched without losing anything, saved in the chat, and the
conversation sent to the model is always the branch shown."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.branches import shown_messages, versions_of
from agent_core.chat.events import ChatEvent, MessagesReplaced
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.database.migrations import migrate
from agent_core.errors import ContextDeskError
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore, StoredMessage


def run(events: object) -> list[ChatEvent]:
    async def collect() -> list[ChatEvent]:
        return [event async for event in events]  # type: ignore[attr-defined]

    return asyncio.run(collect())


@pytest.fixture
def chat(tmp_path: Path) -> tuple[ChatSession, ScriptedProvider]:
    provider = ScriptedProvider()
    agent = load_agent(create_agent(tmp_path / "agent").root)
    session = ChatSession.create(
        agent, ChatStore(tmp_path / "db.sqlite3"), ChatServices(lambda m: (provider, "x"))
    )
    return session, provider


def say(session: ChatSession, provider: ScriptedProvider, text: str, reply: str) -> None:
    provider.enqueue_reply(reply)
    run(session.send(text))


def shown(session: ChatSession) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in shown_messages(session.history())]


def user_id(session: ChatSession, text: str) -> int:
    return next(m.id for m in shown_messages(session.history()) if m.role == "user" and m.content == text)


def test_an_edit_is_a_second_version_in_place_and_the_switcher_brings_the_first_back_whole(
    chat: tuple[ChatSession, ScriptedProvider],
) -> None:
    session, provider = chat
    say(session, provider, "Capital of France?", "Paris.")
    say(session, provider, "And its population?", "About 2.1 million.")
    say(session, provider, "Thanks", "You're welcome.")
    edited = user_id(session, "And its population?")
    provider.enqueue_reply("About 11 million in the region.")
    events = run(session.edit_and_resend(edited, "And its metro population?"))
    [aside] = [e for e in events if isinstance(e, MessagesReplaced)]
    assert aside.versions == (edited,)

    # The new version stands where the old one stood; the old branch is not shown.
    assert shown(session) == [
        ("user", "Capital of France?"),
        ("assistant", "Paris."),
        ("user", "And its metro population?"),
        ("assistant", "About 11 million in the region."),
    ]
    new = user_id(session, "And its metro population?")
    versions = versions_of(session.history())[new]
    assert (versions.ids, versions.position, versions.count) == ((edited, new), 2, 2)

    # ◀: version 1 comes back with all its replies, version 2 is kept aside.
    session.show_version(new, -1)
    assert shown(session) == [
        ("user", "Capital of France?"),
        ("assistant", "Paris."),
        ("user", "And its population?"),
        ("assistant", "About 2.1 million."),
        ("user", "Thanks"),
        ("assistant", "You're welcome."),
    ]
    assert versions_of(session.history())[edited].position == 1
    # The model is sent the branch shown.
    provider.enqueue_reply("Paris is the capital.")
    run(session.send("Summarise"))
    sent = [str(m.content) for m in provider.requests[-1].messages]
    assert any("About 2.1 million." in s for s in sent)
    assert not any("About 11 million" in s for s in sent)

    # ▶: version 2 again, as it was left; version 1 keeps the message sent on it meanwhile.
    session.show_version(edited, +1)
    assert [c for _, c in shown(session)][-2:] == [
        "And its metro population?",
        "About 11 million in the region.",
    ]
    session.show_version(new, -1)
    assert [c for _, c in shown(session)][-2:] == ["Summarise", "Paris is the capital."]
    with pytest.raises(ContextDeskError, match="no version 0"):
        session.show_version(edited, -1)


def test_a_version_edited_again_keeps_its_own_versions_when_the_outer_branch_is_switched(
    chat: tuple[ChatSession, ScriptedProvider],
) -> None:
    session, provider = chat
    say(session, provider, "Plan a trip", "Where to?")
    say(session, provider, "Rome", "Rome it is.")
    provider.enqueue_reply("Lisbon it is.")
    run(session.edit_and_resend(user_id(session, "Rome"), "Lisbon"))
    say(session, provider, "In May", "May is mild.")
    provider.enqueue_reply("June is warm.")
    run(session.edit_and_resend(user_id(session, "In May"), "In June"))
    # Back to "Rome", then to "Lisbon": the "In June" version it was left on comes back.
    session.show_version(user_id(session, "Lisbon"), -1)
    assert [c for _, c in shown(session)] == ["Plan a trip", "Where to?", "Rome", "Rome it is."]
    session.show_version(user_id(session, "Rome"), +1)
    assert [c for _, c in shown(session)][2:] == ["Lisbon", "Lisbon it is.", "In June", "June is warm."]
    assert versions_of(session.history())[user_id(session, "In June")].position == 2


def test_branches_are_saved_with_the_chat(chat: tuple[ChatSession, ScriptedProvider], tmp_path: Path) -> None:
    session, provider = chat
    say(session, provider, "Hi", "Hello.")
    provider.enqueue_reply("Hey.")
    run(session.edit_and_resend(user_id(session, "Hi"), "Hey"))
    reopened = ChatStore(tmp_path / "db.sqlite3")
    messages = reopened.messages(session.id)
    assert [(m.role, m.content) for m in shown_messages(messages)] == [("user", "Hey"), ("assistant", "Hey.")]
    [group] = set(versions_of(messages).values())
    assert group.count == 2 and group.position == 2


def test_a_regenerated_answer_stays_with_its_branch(chat: tuple[ChatSession, ScriptedProvider]) -> None:
    session, provider = chat
    say(session, provider, "Name a colour", "Red.")
    provider.enqueue_reply("Blue.")
    run(session.regenerate())
    assert shown(session) == [("user", "Name a colour"), ("assistant", "Red."), ("assistant", "Blue.")]
    provider.enqueue_reply("Green is a colour.")
    run(session.edit_and_resend(user_id(session, "Name a colour"), "Name a colour, in a sentence"))
    assert shown(session) == [("user", "Name a colour, in a sentence"), ("assistant", "Green is a colour.")]
    session.show_version(user_id(session, "Name a colour, in a sentence"), -1)
    assert shown(session) == [("user", "Name a colour"), ("assistant", "Red."), ("assistant", "Blue.")]


def test_a_chat_saved_before_branches_shows_as_it_did_and_its_next_edit_has_versions(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    old = sqlite3.connect(path)
    migrate(old, upto=11)  # the schema before branches
    old.execute(
        "INSERT INTO sessions(id, title, agent_path, created_at, updated_at) VALUES ('s', 'old', '/a', 1, 1)"
    )
    rows = [
        ("user", "Old question", 1),
        ("assistant", "Old answer", 1),
        ("user", "Question", 0),
        ("assistant", "Answer", 0),
    ]
    for role, content, replaced in rows:
        old.execute(
            "INSERT INTO messages(session_id, role, content, status, created_at, replaced) VALUES ('s', ?, ?, 'complete', 1, ?)",
            (role, content, replaced),
        )
    old.commit()
    old.close()
    store = ChatStore(path)
    messages = store.messages("s")
    assert [m.content for m in shown_messages(messages)] == [
        "Old question",
        "Old answer",
        "Question",
        "Answer",
    ]
    assert versions_of(messages) == {}
    added = store.add_message("s", "user", "Next")
    assert added.parent_id == messages[-1].id  # new messages join the conversation where it is


def test_switching_is_refused_where_a_compaction_summary_stands_for_the_message(
    chat: tuple[ChatSession, ScriptedProvider],
) -> None:
    session, provider = chat
    say(session, provider, "One", "1")
    provider.enqueue_reply("2")
    run(session.edit_and_resend(user_id(session, "One"), "Two"))
    last: StoredMessage = session.history()[-1]
    session.store.add_message(session.id, "summary", "We counted.", covers_until=last.id)
    with pytest.raises(ContextDeskError, match="undo the compaction"):
        session.show_version(user_id(session, "Two"), -1)
    assert [c for _, c in shown(session) if _ != "summary"] == ["Two", "2"]


def test_answer_again_never_repeats_the_question(chat: tuple[ChatSession, ScriptedProvider]) -> None:
    """What-if's Resend: the last question unchanged is answered again under itself; with other
    words (a left-out @mention dropped) it becomes the question's next version."""
    session, provider = chat
    say(session, provider, "Name a fruit", "Apple.")
    provider.enqueue_reply("Pear.")
    run(session.answer_again(user_id(session, "Name a fruit"), "Name a fruit"))
    assert shown(session) == [("user", "Name a fruit"), ("assistant", "Apple."), ("assistant", "Pear.")]
    say(session, provider, "Another", "Plum.")
    provider.enqueue_reply("Kiwi.")
    run(session.answer_again(user_id(session, "Name a fruit"), "Name a fruit, please"))
    assert shown(session) == [("user", "Name a fruit, please"), ("assistant", "Kiwi.")]
    assert [m.content for m in session.history() if m.role == "user" and not m.replaced] == [
        "Name a fruit, please"
    ]
