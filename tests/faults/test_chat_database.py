"""The chat database under faults: a damaged page, a full disk, a lock held by another program, a
read-only folder, and two programs writing to one chat. Real SQLite files, real processes."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.agent.scaffold import create_agent
from agent_core.database.errors import StoreError
from agent_core.paths import user_dirs
from agent_core.store.chats import LEASE_STALE_SECONDS, ChatStore
from tests.support.paths import REPO_ROOT

MESSAGES = 300


def contextdesk(*args: str) -> subprocess.CompletedProcess[str]:
    """The command line in its own process, with this test's user folders."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "agent_core.cli.main", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def damage_a_messages_page(path: Path, table: str = "messages") -> None:
    """Overwrite one leaf page of ``table`` (from the middle) with junk bytes."""
    db = sqlite3.connect(path)
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    leaves = [
        row[0]
        for row in db.execute(
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno", (table,)
        )
    ]
    db.close()
    assert len(leaves) > 4
    assert not path.with_name(path.name + "-wal").exists()  # everything is in the main file
    with path.open("r+b") as file:
        file.seek((leaves[len(leaves) // 2] - 1) * page_size)
        file.write(bytes([0xDE, 0xAD, 0xBE, 0xEF]) * (page_size // 4))


@pytest.fixture
def damaged() -> Iterator[tuple[Path, str]]:
    """The user's chat database with one chat of MESSAGES messages, one page of them damaged."""
    path = user_dirs().database
    store = ChatStore(path)
    session = store.create_session(title="kept")
    for number in range(MESSAGES):
        store.add_message(session.id, "user", f"message {number} " + "words " * 30)
    store.close()
    damage_a_messages_page(path)
    yield path, session.id


def scripted_agent(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    create_agent(root)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"steps": [{"reply": "Still answering."}]}))
    config = (root / "agent.yaml").read_text()
    config = config.replace("model: local:smollm2-135m-instruct", "model: scripted:demo")
    config = config.replace(
        "providers:\n  local: {}", f"providers:\n  scripted:\n    options:\n      script: {script}"
    )
    (root / "agent.yaml").write_text(config)
    for path in [*(root / "rules").glob("*.md"), *(root / "references").glob("*.md")]:
        if "include: always" not in path.read_text():
            path.unlink()
    return root


# --- a damaged page --------------------------------------------------------------------------


def test_show_on_a_damaged_database_prints_the_readable_messages_and_says_what_to_do(
    damaged: tuple[Path, str],
) -> None:
    _, session_id = damaged
    result = contextdesk("sessions", "show", session_id)
    assert "Traceback" not in result.stderr
    assert result.returncode == 1
    shown = [line for line in result.stdout.splitlines() if line.startswith("user> message ")]
    assert shown[0].startswith("user> message 0 ") and shown[-1].startswith(f"user> message {MESSAGES - 1} ")
    assert 0 < MESSAGES - len(shown) < MESSAGES // 2  # one page lost, the rest kept
    assert "damaged" in result.stderr and "contextdesk sessions repair" in result.stderr


def test_list_and_search_on_a_damaged_database_end_with_a_clear_error(damaged: tuple[Path, str]) -> None:
    path, session_id = damaged
    listed = contextdesk("sessions", "list")
    assert listed.returncode == 0 and session_id in listed.stdout, listed.stderr
    readable = {m.content.split()[1] for m in ChatStore(path).messages(session_id)}
    lost = next(str(n) for n in range(MESSAGES) if str(n) not in readable)
    searched = contextdesk("sessions", "search", lost)
    assert "Traceback" not in searched.stderr
    assert searched.returncode == 1
    assert "damaged" in searched.stderr and "contextdesk sessions repair" in searched.stderr


def test_a_chat_still_starts_and_answers_on_a_damaged_database(
    damaged: tuple[Path, str], tmp_path: Path
) -> None:
    result = contextdesk("chat", "--agent", str(scripted_agent(tmp_path)), "hello")
    assert "Traceback" not in result.stderr
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Still answering."
    assert "could not mark interrupted replies" in result.stderr and "sessions repair" in result.stderr


def test_repair_copies_what_can_be_read_into_a_new_database_and_keeps_the_old_file(
    damaged: tuple[Path, str],
) -> None:
    path, session_id = damaged
    repaired = contextdesk("sessions", "repair")
    assert repaired.returncode == 0, repaired.stderr
    [kept] = path.parent.glob(f"{path.name}.damaged-*")
    assert kept.read_bytes()[:16] == b"SQLite format 3\x00"

    store = ChatStore(path)
    messages = store.messages(session_id)
    assert store.damage is None
    lost = MESSAGES - len(messages)
    assert 0 < lost < MESSAGES // 2
    assert f"Saved 1 chat(s) and {len(messages)} message(s)" in repaired.stdout
    assert f"about {lost} message(s) could not be read" in repaired.stdout
    assert str(kept) in repaired.stdout
    assert len(store.search("message")) == 50  # the search index is rebuilt
    assert store.add_message(session_id, "user", "after the repair").id > messages[-1].id
    store.close()

    shown = contextdesk("sessions", "show", session_id)
    assert shown.returncode == 0 and "user> after the repair" in shown.stdout


def test_repair_of_a_healthy_database_keeps_every_chat() -> None:
    path = user_dirs().database
    store = ChatStore(path)
    session = store.create_session(title="healthy")
    store.add_message(session.id, "user", "one")
    store.add_message(session.id, "assistant", "two")
    store.close()
    result = contextdesk("sessions", "repair")
    assert result.returncode == 0, result.stderr
    assert "Saved 1 chat(s) and 2 message(s)" in result.stdout and "nothing unreadable" in result.stdout
    assert [m.content for m in ChatStore(path).messages(session.id)] == ["one", "two"]


def test_a_damaged_page_of_chats_lists_the_others_and_says_so() -> None:
    path = user_dirs().database
    store = ChatStore(path)
    ids = [store.create_session(title=f"chat {n} " + "title " * 15).id for n in range(200)]
    store.close()
    damage_a_messages_page(path, "sessions")
    result = contextdesk("sessions", "list")
    assert "Traceback" not in result.stderr
    assert result.returncode == 1
    listed = [line.split()[0] for line in result.stdout.splitlines()]
    assert 100 < len(listed) < 200 and set(listed) < set(ids)
    assert "damaged" in result.stderr and "contextdesk sessions repair" in result.stderr
    assert contextdesk("sessions", "show", listed[0]).returncode == 0
    lost = next(i for i in ids if i not in listed)
    shown = contextdesk("sessions", "show", lost)
    assert "Traceback" not in shown.stderr
    assert shown.returncode == 1 and "cannot be read" in shown.stderr and "sessions repair" in shown.stderr


# --- each cause its own advice -----------------------------------------------------------------


def test_a_full_disk_says_so_without_the_desktop_s_wording(tmp_path: Path) -> None:
    store = ChatStore(tmp_path / "chats.sqlite3")
    session = store.create_session()
    # SQLite reports SQLITE_FULL once the file may not grow, as on a full disk.
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(StoreError) as caught:
        store.add_message(session.id, "user", "x" * 100_000)
    assert caught.value.problem == "full"
    message = str(caught.value)
    assert "disk is full" in message
    assert "message box" not in message and "damaged" not in message and "lock" not in message


def test_a_database_locked_by_another_program_does_not_talk_about_disks(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    store = ChatStore(path, busy_timeout=0.1)
    session = store.create_session()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys\n"
            f"db = sqlite3.connect({str(path)!r}, isolation_level=None)\n"
            "db.execute('BEGIN EXCLUSIVE')\n"
            "print('locked', flush=True)\n"
            "sys.stdin.readline()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        with pytest.raises(StoreError) as caught:
            store.add_message(session.id, "user", "hello")
    finally:
        holder.communicate("\n", timeout=30)
    assert caught.value.problem == "locked"
    message = str(caught.value)
    assert "another program" in message and "disk" not in message and "damaged" not in message
    assert store.add_message(session.id, "user", "hello").content == "hello"  # once it is let go


@pytest.fixture
def read_only_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder holding a chat database that this process cannot write to."""
    folder = tmp_path / "home"
    folder.mkdir()
    store = ChatStore(folder / "chats.sqlite3")
    store.create_session(title="old chat")
    store.close()
    (folder / "chats.sqlite3").chmod(0o444)
    folder.chmod(0o555)
    mounted = False
    if os.access(folder, os.W_OK):  # root ignores modes: mount the folder read-only over itself
        mount = subprocess.run(["mount", "--bind", "-o", "ro", folder, folder], capture_output=True)
        if mount.returncode != 0:
            folder.chmod(0o755)
            pytest.skip("cannot make a folder read-only here (root without mount)")
        mounted = True
    try:
        yield folder
    finally:
        if mounted:
            subprocess.run(["umount", folder], check=True)
        folder.chmod(0o755)


def test_a_read_only_folder_is_not_called_a_damaged_file(read_only_folder: Path) -> None:
    with pytest.raises(StoreError) as caught:
        ChatStore(read_only_folder / "chats.sqlite3").create_session()
    assert caught.value.problem == "read_only"
    message = str(caught.value)
    assert "not writable" in message and "CONTEXTDESK_HOME" in message
    assert "damaged" not in message and "move it away" not in message and "disk is full" not in message


# --- one writer per chat -----------------------------------------------------------------------

HOLDER = """
import sys
from pathlib import Path
from agent_core.store.chats import LEASE_STALE_SECONDS, ChatStore
store = ChatStore(Path(sys.argv[1]))
session = store.create_session(title="held")
store.add_message(session.id, "user", "from the first program")
reply = store.add_message(session.id, "assistant", "streaming now", status="streaming")
print(session.id, flush=True)
for line in sys.stdin:
    if line.strip() == "release":
        store.release_lease(session.id)
    else:
        store.update_message(reply, content=line.strip())
    print("done", flush=True)
store.close()
"""


@pytest.fixture
def first_writer(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Another process writing to a chat of the user's database; yields it and the chat's id."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(user_dirs().database)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    session_id = process.stdout.readline().strip()
    assert session_id, "the first writer did not start"
    yield process, session_id
    if process.poll() is None:
        process.kill()
    process.wait(timeout=30)
    for stream in (process.stdin, process.stdout):
        if stream is not None and not stream.closed:
            stream.close()


def test_a_second_program_cannot_write_to_a_chat_another_is_writing(
    first_writer: tuple[subprocess.Popen[str], str],
) -> None:
    process, session_id = first_writer
    second = ChatStore(user_dirs().database)
    assert second.recover_interrupted() == 0  # the first program's reply is still streaming
    with pytest.raises(StoreError) as caught:
        second.add_message(session_id, "user", "from the second program")
    assert caught.value.problem == "in_use"
    assert f"(pid {process.pid})" in str(caught.value) and "start a new chat" in str(caught.value)
    assert [m.content for m in second.messages(session_id)] == ["from the first program", "streaming now"]
    assert second.create_session().id != session_id  # other chats are free

    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("still mine\n")
    process.stdin.flush()
    assert process.stdout.readline() == "done\n"
    process.stdin.close()  # the first program closes its store: the chat is free
    assert process.wait(timeout=30) == 0
    second.add_message(session_id, "user", "now mine")
    assert [m.content for m in second.messages(session_id)] == [
        "from the first program",
        "still mine",
        "now mine",
    ]


def test_a_chat_released_by_a_running_program_can_be_written_by_another(
    first_writer: tuple[subprocess.Popen[str], str],
) -> None:
    process, session_id = first_writer
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("release\n")  # as `/new` in an interactive chat does
    process.stdin.flush()
    assert process.stdout.readline() == "done\n"
    second = ChatStore(user_dirs().database)
    second.add_message(session_id, "user", "mine now")
    assert second.messages(session_id)[-1].content == "mine now"


def test_the_lease_of_a_killed_program_is_taken_over(
    first_writer: tuple[subprocess.Popen[str], str],
) -> None:
    process, session_id = first_writer
    process.kill()
    process.wait(timeout=30)
    second = ChatStore(user_dirs().database)
    assert second.recover_interrupted() == 1  # its reply was interrupted
    second.add_message(session_id, "user", "taken over")
    assert second.messages(session_id)[-1].content == "taken over"


def test_a_lease_not_refreshed_for_long_is_taken_over(
    first_writer: tuple[subprocess.Popen[str], str],
) -> None:
    _, session_id = first_writer
    db = sqlite3.connect(user_dirs().database)
    db.execute("UPDATE chat_leases SET heartbeat = heartbeat - ?", (LEASE_STALE_SECONDS + 1,))
    db.commit()
    db.close()
    second = ChatStore(user_dirs().database)
    second.add_message(session_id, "user", "taken over")
    assert second.messages(session_id)[-1].content == "taken over"


def test_contextdesk_chat_on_a_chat_another_program_writes_names_it(
    first_writer: tuple[subprocess.Popen[str], str], tmp_path: Path
) -> None:
    process, session_id = first_writer
    agent = scripted_agent(tmp_path)
    result = contextdesk("chat", "--agent", str(agent), "--session", session_id, "hello")
    assert "Traceback" not in result.stderr
    assert result.returncode == 1
    assert f"(pid {process.pid})" in result.stderr and "one program may write" in result.stderr
    assert [m.content for m in ChatStore(user_dirs().database).messages(session_id)] == [
        "from the first program",
        "streaming now",
    ]


def test_repair_waits_until_no_other_program_has_a_chat_open(
    first_writer: tuple[subprocess.Popen[str], str],
) -> None:
    process, _ = first_writer
    before = user_dirs().database.read_bytes()
    result = contextdesk("sessions", "repair")
    assert result.returncode == 1
    assert f"(pid {process.pid}) has a chat open" in result.stderr and "close that program" in result.stderr
    assert user_dirs().database.read_bytes() == before
    assert not list(user_dirs().database.parent.glob("*.damaged-*"))
