"""`contextdesk skill list|show|set` and the skills of `agent show`, run as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core.agent.loader import load_agent
from agent_core.agent.schema import IncludeMode
from agent_core.cli.main import main
from tests.support.agent_files import write

AGENT_YAML = """name: skilled   # my agent
# the skills' settings follow
skills:
  notes:
    include: always
"""
PDF = """---
name: PDF Processing
description: Fill in PDF forms and extract their text. Use when the user mentions a PDF form, a fillable
  field, or wants the text out of a PDF file so it can be searched, quoted or summarised later on.
license: MIT
allowed-tools: Read Bash(python:*)
---
# PDF processing

Run scripts/fill.py with the form and the values.
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def agent_root(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    write(root / "agent.yaml", AGENT_YAML)
    write(root / "skills/pdf/SKILL.md", PDF)
    write(root / "skills/pdf/scripts/fill.py", "print('filled')\n")
    write(root / "skills/pdf/references/forms.md", "# Forms\n")
    write(root / "skills/notes/SKILL.md", "---\nname: notes\ndescription: Take notes.\n---\nWrite notes.\n")
    return root


def test_agent_show_json_lists_each_skill_with_its_settings_and_files(
    agent_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "agent", "show", str(agent_root), "--json", "--no-start")
    assert code == 0
    notes, pdf = json.loads(out)["skills"]
    assert notes == {
        "name": "notes",
        "description": "Take notes.",
        "include": "always",
        "enabled": True,
        "priorityLevel": 500,
        "path": "skills/notes/SKILL.md",
        "files": [],
        "scripts": [],
    }
    assert pdf["displayName"] == "PDF Processing" and pdf["include"] == "agent"
    assert pdf["files"] == ["references/forms.md", "scripts/fill.py"] and pdf["scripts"] == [
        "scripts/fill.py"
    ]


def test_agent_show_and_skill_list_print_one_line_per_skill_cut_to_the_terminal(
    agent_root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "70")
    code, out, _ = run(capsys, "agent", "show", str(agent_root), "--no-start")
    assert code == 0 and "Skills (2)" in out
    code, out, _ = run(capsys, "skill", "list", "--agent", str(agent_root))
    lines = out.splitlines()
    assert code == 0 and [line.split()[:3] for line in lines] == [
        ["notes", "always", "on"],
        ["pdf", "agent", "on"],
    ]
    assert all(len(line) <= 70 for line in lines) and lines[1].endswith("...")
    assert "Fill in PDF forms" in lines[1]


def test_skill_list_json_is_the_skills_summary(agent_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "skill", "list", "--agent", str(agent_root), "--json")
    assert code == 0 and [skill["name"] for skill in json.loads(out)] == ["notes", "pdf"]


def test_skill_show_prints_header_settings_files_warnings_and_body(
    agent_root: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (agent_root / "skills/pdf/secrets.md").symlink_to(write(tmp_path / "outside.md", "mine\n"))
    write(agent_root / "skills/notes/SKILL.md", "---\nname: notes\ndescription: Use when: notes\n---\n")
    code, out, _ = run(capsys, "skill", "show", "pdf", "--agent", str(agent_root))
    assert code == 0
    assert out.startswith("pdf  (PDF Processing)  skills/pdf/SKILL.md\n")
    assert "License: MIT" in out and "Allowed tools: Read Bash(python:*)" in out
    assert "Settings: include agent, enabled, priority 500" in out
    assert "scripts/fill.py  (script: runs only with your approval)" in out
    assert "has 1 script (scripts/fill.py)" in out  # the trust warning
    assert "skills/pdf/secrets.md: error: links to" in out  # the loader's problem with this skill...
    assert "Claude Code" not in out  # ...and not another skill's
    assert out.rstrip().endswith("Run scripts/fill.py with the form and the values.")


def test_skill_show_json_has_the_body_header_and_problems(
    agent_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "skill", "show", "pdf", "--agent", str(agent_root), "--json")
    data = json.loads(out)
    assert code == 0 and data["body"].startswith("# PDF processing")
    assert data["allowedTools"] == ["Read", "Bash(python:*)"] and data["license"] == "MIT"
    assert any("script" in problem["message"] for problem in data["problems"])


def test_an_unknown_skill_names_the_close_matches(
    agent_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "skill", "show", "pfd", "--agent", str(agent_root))
    assert code == 1 and "no skill named 'pfd'" in err and "did you mean pdf?" in err
    code, _, err = run(capsys, "skill", "set", "zzz", "--agent", str(agent_root), "--enabled", "false")
    assert code == 1 and "skill list --agent" in err


def test_skill_set_writes_the_entry_and_keeps_the_rest_of_agent_yaml(
    agent_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "skill", "set", "pdf", "--agent", str(agent_root), "--include", "manual", "--enabled", "false",
        "--priority", "12",
    )  # fmt: skip
    assert code == 0 and "skills.pdf.include: agent -> manual" in out
    text = (agent_root / "agent.yaml").read_text()
    assert text.startswith(AGENT_YAML)  # comments and the notes entry as written
    skill = load_agent(agent_root).skills["pdf"]
    assert (skill.include, skill.enabled, skill.priority_level) == (IncludeMode.MANUAL, False, 12)
    code, out, _ = run(capsys, "skill", "set", "pdf", "--agent", str(agent_root), "--include", "manual")
    assert code == 0 and "no change" in out


def test_skill_set_checks_every_value_before_writing_any(
    agent_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (agent_root / "agent.yaml").read_bytes()
    code, _, err = run(
        capsys, "skill", "set", "pdf", "--agent", str(agent_root), "--include", "always", "--priority", "1000"
    )
    assert code == 1 and "priorityLevel" in err and "agent.yaml was not changed" in err
    assert (agent_root / "agent.yaml").read_bytes() == before
    code, _, err = run(capsys, "skill", "set", "pdf", "--agent", str(agent_root))
    assert code == 1 and "--include" in err and "--priority" in err


def test_without_agent_the_default_agent_and_its_example_skill_are_used(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "skill", "list")
    assert code == 0 and out.startswith("summarize-text  agent   on   Summarize a text")
    code, out, _ = run(capsys, "skill", "show", "summarize-text")
    assert code == 0 and "references/formats.md" in out and "Problems" not in out


def test_skill_show_writes_escape_sequences_and_hidden_characters_as_escapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "agent"
    write(root / "agent.yaml", "name: a\n")
    write(
        root / "skills/tricky/SKILL.md",
        "---\nname: tricky\ndescription: Tidy\u200b text.\n---\nLine one\x1b]52;c;Y3VybA==\x07\nSort \u202eby date\n",
    )
    code, out, _ = run(capsys, "skill", "show", "tricky", "--agent", str(root))
    assert code == 0 and "\x1b" not in out and "\u202e" not in out and "\u200b" not in out
    assert "Line one\\x1b]52;c;Y3VybA==\\x07" in out and "Sort \\u202eby date" in out
    assert "Tidy\\u200b text." in out


def test_agent_set_refuses_a_skill_the_agent_does_not_have_as_skill_set_does(
    agent_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (agent_root / "agent.yaml").read_text()
    code, _, err = run(capsys, "agent", "set", str(agent_root), "skills.pfd.include", "always")
    assert code == 1 and "no skill named 'pfd'" in err and "did you mean pdf?" in err
    assert (agent_root / "agent.yaml").read_text() == before
    assert run(capsys, "agent", "set", str(agent_root), "skills.pdf.include", "manual")[0] == 0
    assert load_agent(agent_root).skills["pdf"].include is IncludeMode.MANUAL


def test_agent_show_prints_each_skills_display_name_beside_its_folder_name_escaped(
    agent_root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    write(
        agent_root / "skills/tricky/SKILL.md",
        "---\nname: Tidy\u202e txt.exe\ndescription: Tidy text.\n---\nTidy.\n",
    )
    code, out, _ = run(capsys, "agent", "show", str(agent_root), "--no-start")
    assert code == 0
    assert "pdf (PDF Processing)" in out
    assert "tricky (Tidy\\u202e txt.exe)" in out and "\u202e" not in out
