"""Importing a cloned project reads nothing through a link leading out of it, and a file nested
deeper than a parser can follow is refused with a clear error: each refused file is reported and
the rest imports."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.importers import AgentImportError, ImportReport, import_source
from agent_core.cli.main import main

SECRET = "root:x:0:0:the secret line:/root:/bin/bash\n"
RULE = "---\ndescription: a rule\nalwaysApply: true\n---\n\nBe kind.\n"
SUBAGENT = "---\nname: helper\ndescription: helps\n---\n\nYou help.\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file of the user's, outside every project (think /etc/passwd or ~/.ssh/id_rsa)."""
    return write(tmp_path / "home" / "passwd", SECRET)


def imported_text(agent: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in agent.rglob("*") if p.is_file())


def refused(report: ImportReport, name: str) -> bool:
    return any(name in line and "outside the folder being imported" in line for line in report.skipped)


# --- links out of the imported folder ----------------------------------------------------------


def test_a_cursor_rule_linking_out_of_the_project_is_refused_and_reported(
    tmp_path: Path, secret: Path
) -> None:
    project = tmp_path / "cloned"
    write(project / ".cursor" / "rules" / "kind.mdc", RULE)
    (project / ".cursor" / "rules" / "passwd.mdc").symlink_to(secret)

    report = import_source(project, tmp_path / "agent")

    assert refused(report, "passwd")
    assert "the secret line" not in imported_text(tmp_path / "agent")
    assert (tmp_path / "agent" / "rules" / "kind.md").is_file()  # the rest is imported
    assert not (tmp_path / "agent" / "rules" / "passwd.md").exists()


def test_a_cursor_rules_folder_linking_out_of_the_project_is_refused(tmp_path: Path, secret: Path) -> None:
    outside = tmp_path / "home" / "rules"
    write(outside / "stolen.mdc", RULE.replace("Be kind.", "the secret line"))
    project = tmp_path / "cloned"
    (project / ".cursor").mkdir(parents=True)
    (project / ".cursor" / "rules").symlink_to(outside, target_is_directory=True)
    write(project / ".cursorrules", "Be brief.\n")

    report = import_source(project, tmp_path / "agent")

    assert refused(report, "stolen")
    assert "the secret line" not in imported_text(tmp_path / "agent")
    assert "Be brief." in imported_text(tmp_path / "agent")


def test_a_cursorrules_file_linking_out_is_refused(tmp_path: Path, secret: Path) -> None:
    project = tmp_path / "cloned"
    write(project / ".cursor" / "rules" / "kind.mdc", RULE)
    (project / ".cursorrules").symlink_to(secret)

    report = import_source(project, tmp_path / "agent")

    assert refused(report, ".cursorrules")
    assert "the secret line" not in imported_text(tmp_path / "agent")


def test_a_link_inside_the_project_keeps_working(tmp_path: Path) -> None:
    project = tmp_path / "cloned"
    write(project / "docs" / "style.mdc", RULE.replace("Be kind.", "Use short words."))
    write(project / ".cursor" / "rules" / "kind.mdc", RULE)
    (project / ".cursor" / "rules" / "style.mdc").symlink_to(project / "docs" / "style.mdc")

    report = import_source(project, tmp_path / "agent")

    assert not report.skipped
    assert "Use short words." in (tmp_path / "agent" / "rules" / "style.md").read_text(encoding="utf-8")


def test_a_claude_code_agent_file_linking_out_is_refused_and_reported(tmp_path: Path) -> None:
    outside = write(tmp_path / "home" / "spy.md", SUBAGENT.replace("You help.", "the secret line"))
    project = tmp_path / "cloned"
    write(project / ".claude" / "agents" / "helper.md", SUBAGENT)
    (project / ".claude" / "agents" / "spy.md").symlink_to(outside)

    report = import_source(project, tmp_path / "agent")

    assert refused(report, "spy.md")
    assert "the secret line" not in imported_text(tmp_path / "agent")
    assert (tmp_path / "agent" / "subagents" / "helper.md").is_file()


def test_tsagent_prompt_and_rules_linking_out_are_refused(tmp_path: Path, secret: Path) -> None:
    folder = tmp_path / "tsagent"
    write(folder / "tsagent.json", json.dumps({"name": "T"}))
    write(folder / "rules" / "ok.mdt", "---\nname: ok\n---\nBe kind.\n")
    (folder / "rules" / "leak.mdt").symlink_to(secret)
    (folder / "prompt.md").symlink_to(secret)

    report = import_source(folder, tmp_path / "agent")

    assert refused(report, "leak.mdt")
    assert refused(report, "prompt.md")
    assert "the secret line" not in imported_text(tmp_path / "agent")
    assert (tmp_path / "agent" / "rules" / "ok.md").is_file()


def test_an_mcp_config_linking_out_of_the_project_is_refused(tmp_path: Path) -> None:
    outside = write(
        tmp_path / "home" / "mcp.json", json.dumps({"mcpServers": {"mine": {"command": "my-server"}}})
    )
    project = tmp_path / "cloned"
    project.mkdir()
    (project / ".mcp.json").symlink_to(outside)

    with pytest.raises(AgentImportError, match="outside the folder being imported"):
        import_source(project, tmp_path / "agent")
    assert not (tmp_path / "agent").exists()


def test_a_file_named_directly_is_read_even_as_a_link(tmp_path: Path) -> None:
    # The user chose that file: only what the import finds by itself must stay in the folder.
    real = write(tmp_path / "dotfiles" / "mcp.json", json.dumps({"mcpServers": {"t": {"command": "t"}}}))
    (tmp_path / "mcp.json").symlink_to(real)

    import_source(tmp_path / "mcp.json", tmp_path / "agent")

    assert "t:" in (tmp_path / "agent" / "agent.yaml").read_text(encoding="utf-8")


# --- a file nested deeper than a parser can follow ---------------------------------------------

NESTED = "[" * 100_000 + "]" * 100_000


def test_an_mcp_config_nested_without_end_is_refused_with_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "mcp.json"
    source.write_text('{"mcpServers": {"a": {"command": "echo", "args": ' + NESTED + "}}}")
    target = tmp_path / "agent"
    assert main(["agent", "import", str(source), str(target)]) != 0
    err = capsys.readouterr().err
    assert "nested deeper than any settings file needs" in err and "Traceback" not in err
    assert not target.exists()  # nothing half-written


def test_a_tsagent_rule_header_nested_without_end_is_reported_and_the_rest_imports(
    fixtures_dir: Path, tmp_path: Path
) -> None:
    source = tmp_path / "legacy"
    shutil.copytree(fixtures_dir / "importers" / "tsagent-legacy", source)
    (source / "rules" / "deep.mdt").write_text("---\n" + NESTED + "\n---\nbody\n")
    report = import_source(source, tmp_path / "agent")
    agent = load_agent(tmp_path / "agent")
    assert "typescript-style" in agent.rules and "deep" not in agent.rules
    assert any("deep.mdt" in line and "nested hundreds of levels deep" in line for line in report.skipped)
