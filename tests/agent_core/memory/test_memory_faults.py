"""Memory under hostile input and faults: secrets said in words, imports that are huge, killed,
stopped, on a full disk, nested, badly dated, with NUL characters or wrong types, and pinned
memories over the token budget."""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.cli.main import main
from agent_core.context.selection import ContextSelector
from agent_core.database.errors import StoreError
from agent_core.memory.book import MemoryBook, MemoryDraft, MemoryInputError
from agent_core.memory.importing import ImportInterrupted, ImportProgress, import_memories
from agent_core.memory.jsonl import parse_lines
from agent_core.memory.recall import recall
from agent_core.memory.records import Provenance
from agent_core.memory.sensitive import find_sensitive
from agent_core.memory.service import MemoryService
from agent_core.memory.store import MemoryStore
from agent_core.paths import user_dirs
from indexer import Indexer
from tests.support.memory_chats import chat_with, written

pytestmark = pytest.mark.slow

# --- 1. secrets said in words ----------------------------------------------------------------

SECRETS = [
    "my AWS secret access key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "the admin login for the router is admin / hunter2",
    "my password is hunter2",
    "The WiFi password: CorrectHorseBatteryStaple",
    "wifi pw is Tr0ub4dor&3",
    "the server's root password hunter2",
    "login: admin/hunter2",
    "credentials are bob:S3cret!",
    "my bank PIN is 4821",
    "PIN 4821 for my debit card",
    "Passphrase: correct horse battery staple",
    "the API key for Stripe is sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "our deploy token: a8f5f167f44f4964e6c998dee827110c",
    "the db url is postgres://admin:s3cr3t@db.example.com/prod",
    "client secret = 9b1d0c7f3e2a4b5c6d7e8f90",
    "my Gmail password was changed to Summer2024!",
    "Password for the NAS: P@ssw0rd123",
    "the wifi password for guests is sunshine",
    "mein Passwort ist Sommer2024",
    "mon mot de passe est soleil123",
    "mi contraseña es gato123",
    "minha senha é abc12345",
    "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "the alarm code is 0000",
    "my 2FA backup codes are 1234-5678 and 8765-4321",
    "The router admin credentials are admin / admin",
    "user: jdoe pass: Tr0ub4dor",
    "my netflix login is jane@example.com / Hunter2!",
    "the secret is 8f14e45fceea167a5a36dedd4bea2543",
    "ADMIN PASSWORD IS LETMEIN",
    "My Password Is Hunter2",
    "remember my access code 8372",
    "SSH key passphrase is blue-monkey-42",
    "the code to the front door is 4711",
    "recovery phrase: abandon ability able about above absent",
    "The password to the shared drive is 'BlueSky!77'",
    "Das Passwort für das WLAN lautet Sonne2024",
    "ma clé API est 8d7f6e5a4b3c2d1e0f",
    "my ssh passphrase is 'the quick brown fox'",
    "the safe combination is 12-34-56",
    "use 'hunter2' as the password for the test server",
    "Authorization: Basic YWRtaW46aHVudGVyMg==",
]

NOT_SECRETS = [
    "my favourite colour is blue",
    "the key to good tea is patience",
    # Advice about PINs, not one: remembered.
    "my PIN code tip: use a diceware passphrase",
    "I live at 10 Downing Street",
    "we are on Python 3.12.1",
    "the release is v2.4.0-rc1",
    "my order number is 3f2c9a1e-8b7d-4c6e-9f0a-1b2c3d4e5f60",
    "I use a password manager called Bitwarden",
    "I reset my password every 90 days",
    "our password policy: at least 12 characters",
    "the token ring network was retired in 2009",
    "our API key rotation happens monthly",
    "dana@kestrel.io is my manager",
    "my API key is in 1Password",
    "my zip code is 10115",
    "the error code is 404",
    "Pin the tests to Python 3.12",
    "our standup is at 9:30",
    "my flight booking reference is XK7P2Q",
    "the release date is 2026-03-01",
    "the commit is 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a",
    "I forgot my password last week",
    "the secret ingredient is cardamom",
    "my employee id is E12345",
    "I like to code in Rust",
    "Bitwarden is my password manager",
    "the private key is stored at ~/.ssh/id_rsa",
]


@pytest.mark.parametrize("text", SECRETS)
def test_a_credential_said_in_words_is_found(text: str) -> None:
    assert find_sensitive(text), text


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_facts_that_only_mention_keys_or_numbers_are_not_taken_for_secrets(text: str) -> None:
    assert find_sensitive(text) == []


def test_the_two_secrets_the_extractor_saved_are_now_refused_and_facts_still_saved(book: MemoryBook) -> None:
    for text in SECRETS[:2]:
        outcome = book.add(MemoryDraft(text), "extractor", status="proposed")
        assert outcome.action == "blocked" and outcome.memory is None
        assert outcome.warnings[0].startswith("it looks like it holds a")
    typed = book.add(MemoryDraft(SECRETS[1]), "user")  # typed by the user: saved, with the warning
    assert typed.action == "added" and typed.warnings
    assert book.add(MemoryDraft("the key to good tea is patience"), "extractor").action == "added"
    assert sorted(m.text for m in book.find()) == [SECRETS[1], "the key to good tea is patience"]


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    shared = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield shared
    shared.indexer.close()


def test_remember_that_with_a_secret_in_words_tells_the_user_and_saves_nothing(
    tmp_path: Path, selector: ContextSelector
) -> None:
    session, provider, memories = chat_with(tmp_path, selector, "memory:\n  autoAccept: true\n")
    for text in SECRETS[:2]:
        [event] = written(session, provider, f"remember that {text}")
        assert event.outcomes == () and "never saved automatically" in event.notes[0]
        assert "hunter2" not in event.notes[0] and "wJalr" not in event.notes[0]
    assert memories.book_for(session.agent).find(statuses=None) == []


# --- 2-8. imports ------------------------------------------------------------------------------


def jsonl(*lines: object) -> list[str]:
    return [line if isinstance(line, str) else json.dumps(line) for line in lines]


def facts(count: int, start: int = 0) -> list[str]:
    towns = ["Lyon", "Porto", "Graz", "Turku", "Cork", "Ghent", "Bergen", "Brno"]
    return jsonl(
        *(
            {
                "id": f"ext-{n}",
                "text": f"customer {n} lives in {towns[n % len(towns)]} and orders tea {n % 7} times",
            }
            for n in range(start, start + count)
        )
    )


def test_a_large_import_reports_progress_and_running_it_again_adds_nothing(book: MemoryBook) -> None:
    seen: list[ImportProgress] = []
    report = import_memories(book, parse_lines(facts(3000)), progress=seen.append)
    assert report.counts["added"] == 3000 and report.problems == []
    assert [p.done for p in seen] == [500, 1000, 1500, 2000, 2500, 3000]
    assert seen[-1] == ImportProgress(3000, 3000, 3000)
    again = import_memories(book, parse_lines(facts(3000)))
    assert again.counts["unchanged"] == 3000 and again.saved == 0 and again.problems == []
    assert len(book.store.ids()) == 3000


def test_memories_of_a_large_import_are_embedded_on_first_search_and_recalled(
    book: MemoryBook, embedder: Indexer
) -> None:
    lines = [*facts(2100), json.dumps({"id": "boat", "text": "my sailing boat is called Wren"})]
    report = import_memories(book, parse_lines(lines))
    assert not report.checked and report.counts["added"] == 2101
    query = "what is my boat called?"
    result = recall(book.index, query, embedder.embed([query])[0], book.config, session_id=None)
    assert [r.memory.id for r in result.recalled][:1] == ["boat"]


def test_a_stopped_import_keeps_its_committed_batches_and_a_rerun_finishes_it(book: MemoryBook) -> None:
    cancel = threading.Event()
    report = import_memories(
        book, parse_lines(facts(2600)), progress=lambda step: cancel.set(), cancel=cancel
    )
    assert report.stopped and report.saved == 500 and len(book.store.ids()) == 500
    rest = import_memories(book, parse_lines(facts(2600)))
    assert (rest.counts["unchanged"], rest.counts["added"]) == (500, 2100)
    assert len(book.store.ids()) == 2600


def test_lines_without_ids_are_not_imported_twice(book: MemoryBook) -> None:
    lines = jsonl({"text": "our office is in Ghent"}, {"text": "I drink rooibos after lunch"})
    assert import_memories(book, parse_lines(lines)).counts["added"] == 2
    again = import_memories(book, parse_lines(lines))
    assert again.counts["unchanged"] == 2 and len(book.find()) == 2


def test_an_id_used_by_another_memory_is_reported_not_skipped(book: MemoryBook) -> None:
    import_memories(book, parse_lines(jsonl({"id": "ext-1", "text": "our office is in Ghent"})))
    lines = jsonl({"id": "ext-1", "text": "I drink rooibos after lunch"}, {"id": "ext-2", "text": "I cycle"})
    report = import_memories(book, parse_lines([*lines, lines[1]]))
    assert report.problems == [
        "line 1: id 'ext-1' is already used by another memory ('our office is in Ghent'): give the "
        "line another id, or leave the id out",
        "line 3: id 'ext-2' is also the id of line 2: give each line its own id",
    ]


def test_a_full_disk_during_an_import_says_so_and_a_rerun_finishes_it(
    book: MemoryBook, store: MemoryStore
) -> None:
    padding = " and drinks tea" * 100  # ~1,500 characters: 500 lines take some 550 pages
    lines = [line[:-2] + padding + '"}' for line in facts(2500)]
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    # SQLite reports SQLITE_FULL once the file may not grow, as on a full disk: room for one batch.
    store._db.execute(f"PRAGMA max_page_count = {pages + 800}")
    with pytest.raises(ImportInterrupted) as caught:
        import_memories(book, parse_lines(lines))
    message = str(caught.value)
    assert message.startswith("The disk is full: free some space and re-run the import;")
    saved = caught.value.report.saved
    assert saved > 0 and saved % 500 == 0 and f"{saved} memories were saved, re-running skips them" in message
    assert "rollback" not in message and len(store.ids()) == saved

    store._db.execute("PRAGMA max_page_count = 1073741823")
    rest = import_memories(book, parse_lines(lines))
    assert (rest.counts["unchanged"], rest.counts["added"]) == (saved, 2500 - saved)
    assert len(store.ids()) == 2500


def test_a_write_on_a_full_disk_raises_the_full_disk_error_not_a_rollback_error(
    book: MemoryBook, store: MemoryStore
) -> None:
    book.add(MemoryDraft("our office is in Ghent"))
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(StoreError) as caught:
        for n in range(200):
            book.insert_as_is(MemoryDraft(f"fact number {n} " + "x" * 1500), "active", "import")
    assert "disk is full" in str(caught.value) and "rollback" not in str(caught.value)
    assert [m.text for m in book.find()] == ["our office is in Ghent"]


def test_bad_lines_are_reported_with_their_number_and_field_and_nothing_of_them_is_stored(
    book: MemoryBook,
) -> None:
    lines = jsonl(
        {"id": "ok-1", "text": "our office is in Ghent"},
        "[" * 50_000 + "]" * 50_000,  # nested too deeply for Python's JSON reader
        {"id": "t-1", "text": "I like green tea", "created_at": 1e300},
        '{"id": "t-2", "text": "I like black tea", "created_at": NaN}',
        {"id": "n-1", "text": "my locker is 12\x00b"},
        {"id": "b-1", "text": "I like oolong", "pinned": "yes"},
        {"id": "b-2", "text": 5},
        {"id": "b-3", "text": "I like mate", "tags": "x"},
        {"id": "b-4", "text": "I like chai", "importance": "4"},
        {"id": "ok-2", "text": "I cycle to work"},
    )
    report = import_memories(book, parse_lines(lines))
    assert report.counts["added"] == 2 and sorted(book.store.ids()) == ["ok-1", "ok-2"]
    problems = dict(p.split(": ", 1) for p in report.problems)
    assert problems["line 2"].startswith("nested too deeply")
    assert problems["line 3"].startswith("created_at: 1e+300 is not a time between 1970 and 9999")
    assert problems["line 4"].startswith("created_at: nan is not a time between 1970 and 9999")
    assert "try again" not in problems["line 4"]
    assert problems["line 5"].startswith("text: holds a NUL character")
    assert problems["line 6"] == 'pinned: not a field of a memory line; pin a memory with "tier": "pinned"'
    assert problems["line 7"].startswith("text: Input should be a valid string")
    assert problems["line 8"].startswith("tags: not a field of a memory line")
    assert problems["line 9"].startswith("importance: Input should be a valid integer")
    assert len(report.problems) == 8
    # The same check for every other way in.
    with pytest.raises(MemoryInputError, match=r"created_at nan is not a time between 1970 and 9999"):
        book.add(MemoryDraft("I like rooibos", created_at=float("nan")))
    with pytest.raises(MemoryInputError, match=r"expires_at inf is not a time"):
        book.insert_as_is(MemoryDraft("I like rooibos", expires_at=float("inf")), "active", "import")


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    create_agent(root)
    return root


def test_a_bad_time_already_stored_is_shown_flagged_and_does_not_break_list_or_export(
    agent_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["memory", "add", "--agent", str(agent_dir), "--json", "our office is in Ghent"]) == 0
    memory_id = json.loads(capsys.readouterr().out)["memory"]["id"]
    database = sqlite3.connect(user_dirs().database)
    with database:  # as an older version could write it
        database.execute(
            "UPDATE memories SET created_at = 1e300, expires_at = ? WHERE id = ?", (float("inf"), memory_id)
        )
    database.close()

    assert main(["memory", "list", "--agent", str(agent_dir), "--all", "--json"]) == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert listed["created_at"] is None and listed["expires_at"] is None
    assert "created_at 1e+300 is not a valid time" in listed["problem"]
    assert "expires_at inf is not a valid time" in listed["problem"]
    export = tmp_path / "export.jsonl"
    assert main(["memory", "export", "--agent", str(agent_dir), "-o", str(export)]) == 0
    [line] = export.read_text().splitlines()
    assert json.loads(line)["text"] == "our office is in Ghent"


def test_a_nul_character_is_refused_by_memory_add_and_by_the_book(
    agent_dir: Path, book: MemoryBook, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["memory", "add", "--agent", str(agent_dir), "my locker is 12\x00b"]) == 1
    err = capsys.readouterr().err
    assert "NUL character" in err and "remove it" in err and "Traceback" not in err
    with pytest.raises(MemoryInputError, match="NUL"):
        book.add(MemoryDraft("my locker is 12", provenance=Provenance(quote="my locker is 12\x00")))
    with pytest.raises(MemoryInputError, match="NUL"):
        book.edit(book.add(MemoryDraft("my locker is 12")).memory.id, "my locker is 1\x002")  # type: ignore[union-attr]


def test_a_nul_character_in_a_chat_message_is_not_remembered_and_the_user_is_told(
    tmp_path: Path, selector: ContextSelector
) -> None:
    session, provider, memories = chat_with(tmp_path, selector, "memory:\n  autoAccept: true\n")
    [event] = written(session, provider, "remember that my locker is 12\x00b")
    assert event.outcomes == () and "NUL character" in event.notes[0]
    assert memories.book_for(session.agent).find(statuses=None) == []


class CtrlCOnProgress(io.StringIO):
    """Standard error that presses Ctrl+C when the first progress line is written."""

    pressed = False

    def write(self, text: str) -> int:
        written = super().write(text)
        if text.startswith("[import: ") and not self.pressed:
            self.pressed = True
            signal.raise_signal(signal.SIGINT)
        return written


def test_ctrl_c_stops_the_import_command_after_a_batch_and_says_how_to_finish(
    agent_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "big.jsonl"
    file.write_text("\n".join(facts(2600)) + "\n")
    stderr = CtrlCOnProgress()
    with monkeypatch.context() as patch:
        patch.setattr(sys, "stderr", stderr)
        assert main(["memory", "import", "--agent", str(agent_dir), str(file)]) == 130
    err = stderr.getvalue()
    assert err.startswith("[import: 500 of 2,600 lines, 500 memories saved]")
    assert "[import: stopping after the batch being written; Ctrl+C again to stop at once]" in err
    assert err.endswith(
        "Stopped after 500 of 2,600 lines (500 memories saved): run the same command again to finish; "
        "lines already imported are skipped.\n"
    )
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
    capsys.readouterr()
    assert main(["memory", "import", "--agent", str(agent_dir), "--json", str(file)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["unchanged"], report["added"], report["failed"]) == (500, 2100, 0)


def test_an_import_killed_part_way_keeps_whole_batches_and_the_same_command_finishes_it(
    agent_dir: Path, tmp_path: Path
) -> None:
    file = tmp_path / "big.jsonl"
    file.write_text("\n".join(facts(40_000)) + "\n")
    command = [sys.executable, "-c", "import sys; from agent_core.cli.main import main; sys.exit(main(sys.argv[1:]))",
               "memory", "import", "--agent", str(agent_dir), str(file)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert process.stderr is not None
    first = process.stderr.readline()
    assert first.startswith("[import: ") and "of 40,000 lines" in first
    process.kill()  # kill -9
    process.wait(timeout=60)
    store = MemoryStore(user_dirs().database)
    try:
        kept = len(store.ids())
        assert 0 < kept < 40_000 and kept % 500 == 0  # whole batches only
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, check=False)
        assert done.returncode == 0, done.stderr
        assert f"{kept} unchanged, 0 failed" in done.stdout
        assert store.ids() == {f"ext-{n}" for n in range(40_000)}
    finally:
        store.close()


def test_a_file_of_more_than_a_million_lines_is_refused_with_how_to_split_it(
    agent_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "huge.jsonl"
    file.write_text("{}\n" * 1_000_001)
    assert main(["memory", "import", "--agent", str(agent_dir), str(file)]) == 1
    err = capsys.readouterr().err
    assert "has 1,000,001 lines; an import reads at most 1,000,000" in err and "split -l 1000000" in err


# --- 9. pinned memories over the budget --------------------------------------------------------


def long_pins(book: MemoryBook, count: int = 10) -> list[str]:
    topics = [
        "sailing",
        "baking",
        "chess",
        "pottery",
        "climbing",
        "knitting",
        "birding",
        "cycling",
        "rowing",
        "fencing",
    ]
    ids = []
    for n, topic in enumerate(topics[:count]):
        text = f"Notes on {topic}: " + " ".join(f"{topic} detail {k} for season {n}." for k in range(80))
        draft = MemoryDraft(text[:1990], tier="pinned", importance=5 if n == 3 else 3)
        outcome = book.add(draft, on_conflict="keep_both")
        assert outcome.memory is not None
        ids.append(outcome.memory.id)
    return ids


def test_pinned_memories_over_max_tokens_are_left_out_and_said_so(
    book: MemoryBook, embedder: Indexer
) -> None:
    ids = long_pins(book)
    book.config = book.config.model_copy(update={"max_tokens": 600})
    result = recall(book.index, "hello", embedder.embed(["hello"])[0], book.config, session_id=None)
    assert sum(r.tokens for r in result.recalled) <= 600
    assert [r.memory.id for r in result.recalled] == [ids[3]]  # the most important pin first
    assert result.pinned_left_out == 9
    left_out = [r for r in result.near_misses if r.memory.tier == "pinned"]
    assert len(left_out) == 9 and all("over memory.maxTokens (600 tokens)" in r.reason for r in left_out)


def test_the_request_context_and_the_cli_say_which_pins_were_left_out(
    tmp_path: Path, selector: ContextSelector, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "agent"
    create_agent(root)
    (root / "agent.yaml").write_text((root / "agent.yaml").read_text() + "memory:\n  maxTokens: 600\n")
    agent = load_agent(root)
    service = MemoryService(user_dirs().database, selector)
    try:
        long_pins(service.book_for(agent), 4)
        recalled = asyncio.run(service.recall(agent, "hello", agent.config.memory, session_id=None))
    finally:
        service.close()
    assert len(recalled.items) == 1 and len(recalled.near_misses) >= 3
    assert recalled.note.startswith(
        "3 pinned memories were left out: the pinned memories are over memory.maxTokens (600 tokens)"
    )
    assert main(["memory", "list", "--agent", str(root)]) == 0
    err = capsys.readouterr().err
    assert (
        "The 4 pinned memories take" in err and "over memory.maxTokens (600)" in err and "unpin some" in err
    )
