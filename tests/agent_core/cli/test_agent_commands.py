"""The ``contextdesk agent`` commands, run as a user would run them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_core.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_new_then_show_lists_the_default_items(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "agent", "new", str(tmp_path / "mine"), "--name", "Mine")
    assert code == 0 and "Created agent 'Mine'" in out
    code, out, _ = run(capsys, "agent", "show", str(tmp_path / "mine"))
    assert code == 0
    assert (
        "Mine" in out and "clear-answers" in out and "always" in out and "local:smollm2-135m-instruct" in out
    )


def test_new_refuses_a_folder_that_has_an_agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "agent", "new", str(tmp_path / "a"))
    code, _, err = run(capsys, "agent", "new", str(tmp_path / "a"))
    assert code == 1 and "already holds an agent" in err


def test_show_json_describes_secrets_without_revealing_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "a"
    run(capsys, "agent", "new", str(root))
    yaml_path = root / "agent.yaml"
    yaml_path.write_text(
        yaml_path.read_text().replace(
            "providers:\n  local: {}", "providers:\n  local: {}\n  openai:\n    apiKey: sk-secret\n"
        )
    )
    code, out, _ = run(capsys, "agent", "show", str(root), "--json")
    data = json.loads(out)
    assert code == 0
    assert [p["apiKey"] for p in data["providers"]] == ["none", "literal (hidden)"]
    assert "sk-secret" not in out
    assert data["rules"][0] == {
        "name": "clear-answers",
        "description": "Keep answers short, direct and honest",
        "priorityLevel": 100,
        "include": "always",
        "characters": data["rules"][0]["characters"],
    }


def test_check_exits_1_and_lists_every_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "a"
    run(capsys, "agent", "new", str(root))
    (root / "rules" / "bad.md").write_text("---\ninclude: sometimes\n---\nx\n")
    (root / "references" / "worse.md").write_text("---\nname: worse\n")
    code, out, err = run(capsys, "agent", "check", str(root))
    assert code == 1
    assert "rules/bad.md:2: error:" in out
    assert "references/worse.md:1: error:" in out
    assert "2 errors" in err


def test_check_passes_on_a_clean_agent_and_strict_fails_on_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "a"
    run(capsys, "agent", "new", str(root))
    assert run(capsys, "agent", "check", str(root))[0] == 0
    (root / "rules" / "note.txt").write_text("x")
    assert run(capsys, "agent", "check", str(root))[0] == 0
    assert run(capsys, "agent", "check", "--strict", str(root))[0] == 1


def test_import_prints_what_was_imported_and_skipped(
    tmp_path: Path, fixtures_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "agent", "import", str(fixtures_dir / "importers" / "tsagent-agent.yaml"), str(tmp_path / "t")
    )
    assert code == 0
    assert "imported: rule 'tone-of-voice' (always)" in out
    assert "skipped: settings.theme" in out
    assert "warning:" in out and "ANTHROPIC_API_KEY" in out


def test_a_missing_agent_folder_is_a_clear_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "agent", "show", str(tmp_path / "nope"))
    assert code == 1 and err.startswith("contextdesk: ") and "contextdesk agent new" in err


def test_the_installed_console_script_runs(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("contextdesk")
    result = subprocess.run(
        [str(script), "agent", "new", str(tmp_path / "x")], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "x" / "agent.yaml").is_file()
