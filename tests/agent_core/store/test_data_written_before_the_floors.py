"""Chats, memories, workflow runs and sub-agent transcripts saved by the code just before the core
was restructured open with today's code, each with what it held.

The fixture was written by commit 06bc543 (tests/fixtures/data_written_by_06bc543/README.md). What
it held is read from the fixture's own file with plain SQL, so the test does not depend on the code
it checks; the data is copied first, since opening it migrates it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from agent_core.memory.store import MemoryFilter, MemoryStore
from agent_core.paths import user_dirs
from desktop import launcher
from tests.support.paths import FIXTURES

OLD_DATA = FIXTURES / "data_written_by_06bc543"
OLD_DATABASE = OLD_DATA / "data" / "contextdesk.sqlite3"
# The agent's folder when the data was written: chats, memories and runs name it.
OLD_AGENT = "/tmp/fx/home/data/agents/default"


@pytest.fixture
def old_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    shutil.copytree(OLD_DATA, home, ignore=shutil.ignore_patterns("README.md"))
    monkeypatch.setenv("CONTEXTDESK_HOME", str(home))
    return home


def saved_rows(sql: str) -> list[tuple[str, ...]]:
    with sqlite3.connect(f"file:{OLD_DATABASE}?mode=ro&immutable=1", uri=True) as db:
        return [tuple(row) for row in db.execute(sql)]


def test_the_fixture_holds_every_kind_of_record() -> None:
    assert len(saved_rows("SELECT id FROM sessions")) == 2  # a chat and a sub-agent's transcript
    assert len(saved_rows("SELECT id FROM messages")) == 6
    assert len(saved_rows("SELECT id FROM memories")) == 2
    assert len(saved_rows("SELECT id FROM workflow_runs")) == 1


def test_every_saved_chat_shows_its_messages_word_for_word(
    old_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = [session for (session,) in saved_rows("SELECT id FROM sessions")]
    for session in sessions:
        assert launcher.main(["sessions", "show", session]) == 0
        shown = capsys.readouterr().out
        for role, content in saved_rows(f"SELECT role, content FROM messages WHERE session_id = '{session}'"):
            assert f"{role}> {content}" in shown


def test_the_saved_memories_list_as_they_were(old_home: Path) -> None:
    # The agent's folder is gone (it was under /tmp), so the memories are read by its path.
    store = MemoryStore(user_dirs().database)
    try:
        memories = store.find(MemoryFilter(agent=OLD_AGENT))
    finally:
        store.close()
    assert sorted((m.id, m.text, m.kind) for m in memories) == sorted(
        saved_rows("SELECT id, text, kind FROM memories")
    )


def test_the_saved_workflow_run_shows_its_steps_and_result(
    old_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    [(run_id, status, store)] = saved_rows("SELECT id, status, store FROM workflow_runs")
    assert launcher.main(["workflow", "show", run_id, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["status"] == status == "finished"
    assert shown["context"] == json.loads(store)
    assert [step["state_id"] for step in shown["steps"]] == ["outline", "remind"]
