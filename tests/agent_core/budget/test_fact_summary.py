"""Compaction with a model too small to summarize: the note is facts found by rules in the turns
(names, numbers, dates, decisions, open tasks), each citing its message and found again in it;
the model is not asked, and the turns stay in the chat."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.budget.fact_extraction import extract_facts, found_in
from agent_core.budget.fact_summary import fact_summary
from agent_core.store.chats import ChatStore, StoredMessage
from tests.support.models import runnable_offline_model

# A chat as people have them: a release being planned, a garbled small-model reply among them.
TURNS = [
    ("user", "We need to ship Bluefin 0.9.2 by March 14. Priya owns the changelog, see docs/CHANGELOG.md."),
    ("assistant", "```python\nprint('release notes')\nitems = 1024\n```"),
    ("user", "We decided to drop Windows 7 support. The installer is 84 MB now, it was 61 MB."),
    ("assistant", "Noted. Dropping Windows 7 removes the legacy MSI path."),
    ("user", "Remember to ask Tomasz about the signing key before Friday. Budget is €2,400 for the CDN."),
    ("assistant", "Could you confirm whether 2026-03-14 is a hard deadline?"),
]


def messages() -> list[StoredMessage]:
    return [
        StoredMessage(id=10 + i, session_id="s", role=role, content=text, status="complete", created_at=0.0)  # type: ignore[arg-type]
        for i, (role, text) in enumerate(TURNS)
    ]


def cited_facts(note: str) -> list[tuple[str, int]]:
    """(fact, message id) for each fact the note lists: "- sentence (#id, role)" lines, and
    "Heading: term (#id, role); term (#id, role)" lines."""
    found: list[tuple[str, int]] = []
    for line in note.splitlines():
        if line.startswith("- "):
            match = re.fullmatch(r"- (.+) \(#(\d+), \w+\)", line)
            assert match, line
            found.append((match.group(1), int(match.group(2))))
        elif line.split(":")[0] in ("Names and files", "Numbers", "Dates"):
            for term in line.partition(": ")[2].split("; "):
                match = re.fullmatch(r"(.+) \(#(\d+), \w+\)", term)
                assert match, term
                found.append((match.group(1), int(match.group(2))))
    return found


def test_the_rules_find_names_numbers_dates_decisions_and_tasks_with_their_message() -> None:
    facts = {(fact.kind, fact.text): fact.message_id for fact in extract_facts(messages())}
    assert facts[("decision", "We decided to drop Windows 7 support.")] == 12
    assert facts[("task", "We need to ship Bluefin 0.9.2 by March 14.")] == 10
    assert facts[("task", "Remember to ask Tomasz about the signing key before Friday.")] == 14
    assert facts[("date", "March 14")] == 10 and facts[("date", "2026-03-14")] == 15
    assert facts[("date", "Friday")] == 14
    assert facts[("number", "84 MB")] == 12 and facts[("number", "€2,400")] == 14
    assert facts[("name", "docs/CHANGELOG.md")] == 10 and facts[("name", "Tomasz")] == 14
    assert facts[("name", "Bluefin")] == 10
    assert facts[("decision", "Priya owns the changelog, see docs/CHANGELOG.md.")] == 10
    # The code block of the garbled reply is not facts.
    assert not any("1024" in text for _, text in facts)


def test_every_fact_is_found_again_in_the_message_it_cites() -> None:
    by_id = {message.id: message for message in messages()}
    facts = extract_facts(messages())
    assert len(facts) >= 12
    assert all(found_in(fact.text, by_id[fact.message_id]) for fact in facts)
    assert found_in("we  DECIDED to drop windows 7 support.", by_id[12])  # case and spacing
    assert not found_in("Windows 8", by_id[12])


def test_the_note_cites_each_fact_and_keeps_the_earlier_summary() -> None:
    note = fact_summary(messages(), "Earlier: the project is Heron.")
    assert note.startswith("Conversation so far: facts taken from messages #10-#15 by rules")
    assert "Earlier: the project is Heron." in note
    assert "- We decided to drop Windows 7 support. (#12, user)" in note
    assert "Bluefin (#10, user)" in note and "1024" not in note
    by_id = {message.id: message for message in messages()}
    cited = cited_facts(note)
    assert len(cited) >= 12
    assert all(found_in(text, by_id[number]) for text, number in cited)
    assert fact_summary(messages(), None) == fact_summary(messages(), None)  # deterministic


def test_a_chat_without_facts_says_so() -> None:
    chat = [
        StoredMessage(id=1, session_id="s", role="user", content="hi", status="complete", created_at=0.0),
        StoredMessage(
            id=2, session_id="s", role="assistant", content="hello", status="complete", created_at=0.0
        ),
    ]
    assert fact_summary(chat, None).endswith(
        "No names, numbers, decisions or tasks were found in these messages."
    )


@pytest.mark.slow
def test_the_bundled_model_compacts_into_checked_facts_and_keeps_every_message(tmp_path: Path) -> None:
    from agent_core.workspace import Workspace

    runnable_offline_model()
    root = create_agent(tmp_path / "agent").root
    store = ChatStore(tmp_path / "db.sqlite3")
    workspace = Workspace(load_agent(root), store=store)
    sent = [text for role, text in TURNS if role == "user"] + ["Thanks. Anything else?"]

    async def scenario() -> tuple[list[StoredMessage], StoredMessage | None]:
        try:
            session = workspace.new_chat()
            session.override_settings(context={"keep_recent_turns": 1, "auto_compact": False})
            for text in sent:
                async for _ in session.send(text):
                    pass
            summary = await session.compact()
            return store.messages(session.id, with_contexts=False, current_only=True), summary
        finally:
            await workspace.aclose()

    kept, summary = asyncio.run(asyncio.wait_for(scenario(), 900))
    assert summary is not None
    assert summary.content.startswith("Conversation so far: facts taken from messages")
    assert "We decided to drop Windows 7 support." in summary.content
    assert [m.content for m in kept if m.role == "user"] == sent  # nothing lost
    covered = {m.id: m for m in kept if m.id <= (summary.covers_until or 0)}
    cited = cited_facts(summary.content)
    assert cited
    unfound = [(text, number) for text, number in cited if not found_in(text, covered[number])]
    assert not unfound, summary.content


def test_a_task_is_a_request_not_a_common_word_of_another_language() -> None:
    from agent_core.budget.fact_extraction import _facts_of

    garbled = "Para isso é importante vender asaláveis para todo o mundo. TODO: update the docs."
    tasks = [text for kind, text in _facts_of(garbled) if kind == "task"]
    assert tasks == ["TODO: update the docs."]
