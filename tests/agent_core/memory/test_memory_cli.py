"""``contextdesk memory ...``: the exact command shapes scripts rely on, import and export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core.agent.scaffold import create_agent
from agent_core.cli.main import main

pytestmark = pytest.mark.slow


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    create_agent(root)
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def listed(capsys: pytest.CaptureFixture[str], agent_dir: Path, *flags: str) -> list[dict[str, object]]:
    code, out, _ = run(capsys, "memory", "list", "--agent", str(agent_dir), *flags, "--json")
    assert code == 0
    return json.loads(out)  # type: ignore[no-any-return]


def test_add_list_forget(agent_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "memory", "add", "--agent", str(agent_dir), "--kind", "preference", "--importance", "4",
        "--expires", "2099-01-31", "--json", "I prefer pytest over unittest",
    )  # fmt: skip
    added = json.loads(out)
    assert code == 0 and added["action"] == "added"
    memory = added["memory"]
    assert (memory["kind"], memory["importance"], memory["scope"], memory["expires_at"]) == (
        "preference", 4, "agent", "2099-01-31T00:00:00Z",
    )  # fmt: skip

    assert [m["id"] for m in listed(capsys, agent_dir)] == [memory["id"]]
    code, out, _ = run(capsys, "memory", "forget", "--agent", str(agent_dir), memory["id"])
    assert code == 0 and "Forgotten" in out
    assert listed(capsys, agent_dir) == []
    assert [m["status"] for m in listed(capsys, agent_dir, "--all")] == ["forgotten"]


def test_import_keeps_ids_applies_dates_in_order_and_counts(
    agent_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        {
            "id": "ext-3",
            "text": "we moved to PostgreSQL 16",
            "created_at": "2026-03-01T09:00:00Z",
            "supersedes": "ext-1",
        },
        {
            "id": "ext-1",
            "text": "our database is MySQL 8",
            "kind": "project",
            "created_at": "2025-06-01T09:00:00Z",
        },
        {"id": "ext-2", "text": "Our database is MySQL 8.", "created_at": "2025-07-01T09:00:00Z"},
        {
            "id": "ext-4",
            "text": "my cat is called Miso",
            "importance": 2,
            "scope": "global",
            "persona": "dev",
        },
        {"id": "ext-5", "text": "the office is closed", "expires_at": "2020-01-01"},
        {"id": "ext-6", "text": "x", "importance": 7},
    ]
    file = tmp_path / "memories.jsonl"
    file.write_text("\n".join(json.dumps(line) for line in lines) + "\nnot json\n")

    code, out, _ = run(capsys, "memory", "import", "--agent", str(agent_dir), str(file), "--json")
    report = json.loads(out)
    assert code == 1  # some lines failed
    assert (report["added"], report["merged"], report["superseded"], report["failed"]) == (3, 1, 1, 2)
    assert report["ignored_fields"] == {"persona": 1}
    assert any(p.startswith("line 6: importance") for p in report["problems"])

    memories = {m["id"]: m for m in listed(capsys, agent_dir, "--all")}
    assert memories["ext-1"]["status"] == "superseded" and memories["ext-1"]["superseded_by"] == "ext-3"
    assert memories["ext-1"]["seen_count"] == 2 and "ext-2" not in memories
    assert memories["ext-3"]["status"] == "active" and memories["ext-4"]["scope"] == "global"
    assert memories["ext-5"]["status"] == "expired"


def test_export_imports_again_unchanged(
    agent_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for text in ["our database is MySQL 8", "we moved to PostgreSQL 16", "I like Rust"]:
        run(capsys, "memory", "add", "--agent", str(agent_dir), text)
    code, exported, _ = run(capsys, "memory", "export", "--agent", str(agent_dir))
    assert code == 0 and len(exported.splitlines()) == 3
    before = {
        (m["id"], m["text"], m["status"], m["superseded_by"]) for m in listed(capsys, agent_dir, "--all")
    }

    other = tmp_path / "other"
    create_agent(other)
    file = tmp_path / "export.jsonl"
    file.write_text(exported)
    run(capsys, "memory", "delete-all", "--agent", str(agent_dir), "--yes")
    code, out, _ = run(capsys, "memory", "import", "--agent", str(agent_dir), str(file))
    assert code == 0, out
    after = {
        (m["id"], m["text"], m["status"], m["superseded_by"]) for m in listed(capsys, agent_dir, "--all")
    }
    assert after == before


def test_history_shows_every_change(agent_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "memory", "add", "--agent", str(agent_dir), "--json", "my cat is called Mso")
    memory_id = json.loads(out)["memory"]["id"]
    run(capsys, "memory", "edit", "--agent", str(agent_dir), memory_id, "my cat is called Miso")
    run(capsys, "memory", "pin", "--agent", str(agent_dir), memory_id)
    run(capsys, "memory", "edit", "--agent", str(agent_dir), memory_id, "--importance", "5")
    code, out, _ = run(capsys, "memory", "history", "--agent", str(agent_dir), memory_id, "--json")
    events = json.loads(out)
    assert code == 0
    assert [e["event"] for e in events] == ["created", "edited", "pinned", "changed"]
    assert events[3]["detail"] == "importance 3 → 5"
    assert events[1]["old_text"] == "my cat is called Mso"


def test_errors_say_what_to_do(agent_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "memory", "forget", "--agent", str(agent_dir), "m-missing")
    assert code != 0 and "memory list" in err and "Traceback" not in err
    code, _, err = run(capsys, "memory", "add", "--agent", str(agent_dir), "--expires", "soon", "x y")
    assert code != 0 and "2026-06-30" in err
    code, _, err = run(capsys, "memory", "delete-all", "--agent", str(agent_dir))
    assert code != 0 and "--yes" in err
    code, _, err = run(capsys, "memory", "import", "--agent", str(agent_dir), str(tmp_path))
    assert code != 0 and "folder" in err


def test_memory_settings_read_from_agent_yaml_as_written(agent_dir: Path) -> None:
    from agent_core.agent.loader import load_agent

    agent_file = agent_dir / "agent.yaml"
    agent_file.write_text(
        agent_file.read_text() + "memory:\n  extraction: off\n  autoAccept: true\n  maxTokens: 300\n"
    )
    agent = load_agent(agent_dir)
    assert agent.errors == []
    assert (agent.config.memory.extraction, agent.config.memory.auto_accept, agent.config.memory.max_tokens) == (
        "off", True, 300,
    )  # fmt: skip


def test_select_lists_recalled_and_near_miss_memories(
    agent_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(capsys, "memory", "add", "--agent", str(agent_dir), "--json", "my cat is called Miso")
    cat = json.loads(out)["memory"]["id"]
    run(capsys, "memory", "add", "--agent", str(agent_dir), "our database is PostgreSQL 16")
    batch = tmp_path / "batch.jsonl"
    batch.write_text(
        '{"id": 1, "message": "what is my cat called?"}\n{"id": 2, "message": "capital of France?"}\n'
    )

    code, out, _ = run(capsys, "select", "--agent", str(agent_dir), "--no-tools", "--batch", str(batch))
    first, second = (json.loads(line) for line in out.splitlines())
    assert code == 0
    [memory] = [s for s in first["selected"] if s["type"] == "memory"]
    assert (memory["name"], memory["text"]) == (cat, "my cat is called Miso")
    assert memory["score"] > 0.5 and memory["reason"].startswith("matched 'cat'")
    assert not [s for s in second["selected"] if s["type"] == "memory"]

    code, out, _ = run(
        capsys,
        "select",
        "--agent",
        str(agent_dir),
        "--no-tools",
        "--no-memory",
        "--json",
        "what is my cat called?",
    )
    assert code == 0 and not [s for s in json.loads(out)["selected"] if s["type"] == "memory"]
