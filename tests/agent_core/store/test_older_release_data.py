"""A newer ContextDesk opens the data folder an older one wrote: the chats, their messages and
the memories are there, the newer migrations run, the embedding cache still answers.

The fixture was written by the code of commit 4645ea5 (tests/fixtures/data_written_by_4645ea5/README.md);
the data is copied first, since opening it migrates it.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from agent_core.database.migrations import MIGRATIONS
from agent_core.memory.store import MemoryFilter, MemoryStore
from agent_core.paths import user_dirs
from desktop import launcher
from indexer.cache import EmbeddingCache
from tests.support.paths import FIXTURES

OLD_DATA = FIXTURES / "data_written_by_4645ea5"
SESSION = "ff42ede5f7e847169156527cf0f4b81c"
# The agent's folder when the older release wrote the data: sessions and memories name it.
OLD_AGENT = "/tmp/s8/oldhome/data/agents/default"
MESSAGES = [
    ("user", "Name three colours."),
    ("assistant", "The three colours are: blue, red, and yellow."),
    ("user", "Which one is warmest?"),
    (
        "assistant",
        "The one with the most number of syllables is blue, but that's not entirely accurate. "
        'The correct answer would be red because it has 3 letters: "RED".',
    ),
]


@pytest.fixture
def old_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    # A reader's -wal/-shm files come and go while a database is open: never copy them.
    shutil.copytree(OLD_DATA, home, ignore=shutil.ignore_patterns("README.md", "*-wal", "*-shm"))
    monkeypatch.setenv("CONTEXTDESK_HOME", str(home))
    return home


def applied_migrations(database: Path) -> list[str]:
    # The fixture is opened as immutable (no -wal/-shm beside it); a copy in use is read as it is.
    mode = "ro&immutable=1" if database.is_relative_to(OLD_DATA) else "ro"
    with sqlite3.connect(f"file:{database}?mode={mode}", uri=True) as db:
        return [name for (name,) in db.execute("SELECT name FROM schema_migrations ORDER BY id")]


def test_the_fixture_predates_the_newest_migrations() -> None:
    old = applied_migrations(OLD_DATA / "data" / "contextdesk.sqlite3")
    assert len(old) < len(MIGRATIONS)  # else this test no longer checks an upgrade


def test_the_chats_of_an_older_release_list_and_show_with_their_messages_intact(
    old_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert launcher.main(["sessions", "list"]) == 0
    assert SESSION in capsys.readouterr().out
    assert launcher.main(["sessions", "show", SESSION]) == 0
    shown = capsys.readouterr().out
    for role, text in MESSAGES:
        assert f"{role}> {text}" in shown
    assert applied_migrations(user_dirs().database) == [name for name, _ in MIGRATIONS]


def test_the_memories_and_the_embedding_cache_of_an_older_release_still_open(old_home: Path) -> None:
    store = MemoryStore(user_dirs().database)
    try:
        memories = store.find(MemoryFilter(agent=OLD_AGENT))
    finally:
        store.close()
    assert [(m.text, m.kind, m.status) for m in memories] == [
        ("The user's favourite colour is teal.", "preference", "active")
    ]
    cache = EmbeddingCache(user_dirs().embeddings_cache)
    try:
        assert cache.enabled and cache.count() > 0
    finally:
        cache.close()
