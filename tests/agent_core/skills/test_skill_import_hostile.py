"""A cloned collection is untrusted: every hostile file is reported, the rest imports, nothing
hangs, and nothing outside the source reaches the agent."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from agent_core.agent.importers import ImportReport, import_source
from agent_core.agent.importers import _skill_read as skill_read
from agent_core.agent.loader import load_agent
from tests.support.agent_files import write
from tests.support.paths import FIXTURES

SHELLCHECK = FIXTURES / "skill_import/collection/plugins/shell-scripting/skills/shellcheck-configuration"
SECRET = "SSH key: hunter2\n"


def import_within(source: Path, target: Path, seconds: float = 60.0) -> ImportReport:
    """The import's report, failing the test (not hanging it) when the import does not return."""
    done: list[ImportReport] = []
    thread = threading.Thread(target=lambda: done.append(import_source(source, target)), daemon=True)
    thread.start()
    thread.join(seconds)
    assert done, f"importing {source} did not finish within {seconds} s"
    return done[0]


def good_skill(folder: Path, name: str) -> Path:
    shutil.copytree(SHELLCHECK, folder)
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    (folder / "SKILL.md").write_text(text.replace("shellcheck-configuration", name, 1), encoding="utf-8")
    return folder


def skipped_for(report: ImportReport, where: str) -> str:
    lines = [line for line in report.skipped if line.startswith(f"skill at {where}:")]
    assert len(lines) == 1, report.skipped
    return lines[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_each_hostile_skill_is_reported_and_the_rest_imports(tmp_path: Path) -> None:
    source = tmp_path / "clone"
    good_skill(source / "good", "good")
    header = "---\nname: huge\ndescription: " + "x" * (10 * 1024 * 1024) + "\n---\nBody\n"
    write(source / "huge/SKILL.md", header)  # a 10 MB front matter
    write(source / "latin/SKILL.md", "---\nname: latin\ndescription: Caf\xe9\n---\n".encode("latin-1"))
    (source / "pipe").mkdir()
    os.mkfifo(source / "pipe" / "SKILL.md")  # reading it would block for ever
    (source / "loop").symlink_to(source / "loop")  # a skill folder that is a link to itself
    write(source / "no-header/SKILL.md", "Just text, no header.\n")

    report = import_within(source, tmp_path / "agent")

    assert sorted(p.name for p in (tmp_path / "agent/skills").iterdir()) == ["good"]
    assert "larger than 5 MB" in skipped_for(report, "huge")
    assert "not UTF-8" in skipped_for(report, "latin")
    assert "a named pipe" in skipped_for(report, "pipe")
    assert "no header" in skipped_for(report, "no-header")
    assert any(line.startswith("loop: cannot follow the link") for line in report.skipped)
    assert load_agent(tmp_path / "agent").errors == []


def test_links_out_of_the_source_are_refused_and_reported(tmp_path: Path) -> None:
    outside = tmp_path / "home"
    write(outside / "secret.txt", SECRET)
    good_skill(outside / "their-skill", "their-skill")
    source = tmp_path / "clone"
    skill = good_skill(source / "linky", "linky")
    (skill / "references" / "passwd.md").symlink_to(outside / "secret.txt")  # a file linking out
    (skill / "assets").symlink_to(outside)  # a folder linking out
    (skill / "scripts").mkdir()
    (skill / "scripts" / "same.md").symlink_to(skill / "references" / "details.md")  # within: copied
    (source / "borrowed").symlink_to(outside / "their-skill")  # a skill folder linking out
    good_skill(source / "leaky-header", "leaky-header")
    (source / "leaky-header" / "SKILL.md").unlink()
    (source / "leaky-header" / "SKILL.md").symlink_to(outside / "their-skill" / "SKILL.md")

    report = import_within(source, tmp_path / "agent")

    copied = tmp_path / "agent" / "skills"
    assert sorted(p.name for p in copied.iterdir()) == ["linky"]
    assert sorted(p.relative_to(copied).as_posix() for p in copied.rglob("*") if p.is_file()) == [
        "linky/SKILL.md",
        "linky/references/details.md",
        "linky/scripts/same.md",
    ]
    assert not any(p.is_symlink() for p in copied.rglob("*"))
    assert all(SECRET not in p.read_text(encoding="utf-8") for p in copied.rglob("*") if p.is_file())
    notes = "\n".join(report.warnings)
    assert "references/passwd.md: it links to" in notes and "assets: it links to" in notes
    assert any(line.startswith("borrowed: it links to") for line in report.skipped)
    assert "outside the folder being imported" in skipped_for(report, "leaky-header")


def test_a_link_back_into_the_skill_is_not_followed_round_and_round(tmp_path: Path) -> None:
    skill = good_skill(tmp_path / "clone" / "loopy", "loopy")
    (skill / "references" / "again").symlink_to(skill)
    report = import_within(tmp_path / "clone", tmp_path / "agent")
    assert (tmp_path / "agent/skills/loopy/references/details.md").is_file()
    assert any("references/again/: a link back into the skill" in line for line in report.warnings)


def test_files_past_the_caps_are_left_out_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(skill_read, "MAX_SKILL_FILE_BYTES", 4_000)
    monkeypatch.setattr(skill_read, "MAX_FILES_PER_SKILL", 2)
    skill = good_skill(tmp_path / "clone" / "capped", "capped")  # references/details.md is 7,951 bytes
    write(skill / "a.txt", "a\n")
    write(skill / "b.txt", "b\n")
    write(skill / "c.txt", "c\n")
    report = import_within(tmp_path / "clone", tmp_path / "agent")
    folder = tmp_path / "agent/skills/capped"
    assert sorted(p.name for p in folder.rglob("*") if p.is_file()) == ["SKILL.md", "a.txt", "b.txt"]
    notes = "\n".join(report.warnings)
    assert "references/details.md: left out: it is larger than" in notes
    assert "c.txt: left out: the skill has more than 2 files" in notes


def test_version_control_folders_are_not_searched_or_copied(tmp_path: Path) -> None:
    skill = good_skill(tmp_path / "clone" / "versioned", "versioned")
    write(skill / ".git" / "config", "[core]\n")
    good_skill(tmp_path / "clone" / ".git" / "modules" / "hidden", "hidden")
    good_skill(tmp_path / "clone" / "node_modules" / "pkg", "pkg")
    import_within(tmp_path / "clone", tmp_path / "agent")
    skills = tmp_path / "agent" / "skills"
    assert sorted(p.name for p in skills.iterdir()) == ["versioned"]
    assert not (skills / "versioned" / ".git").exists()
