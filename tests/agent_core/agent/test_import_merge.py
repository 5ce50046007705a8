"""An import merges into an existing agent predictably, can be tried first, and is all or nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.importers import AgentImportError, import_source
from agent_core.agent.scaffold import create_agent
from agent_core.cli.main import main

CORPUS = Path(__file__).parents[2] / "fixtures" / "importers" / "rules-corpus"


def folder_bytes(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_dry_run_lists_what_would_change_and_writes_nothing(tmp_path: Path) -> None:
    target = create_agent(tmp_path / "agent").root
    import_source(CORPUS / "cursor-both", target)
    (target / "rules" / "testing.md").write_text("---\nname: testing\n---\nMine.\n", encoding="utf-8")
    before = folder_bytes(target)
    report = import_source(CORPUS / "cursor-both", target, dry_run=True)
    assert folder_bytes(target) == before
    assert report.dry_run
    assert "rule 'testing-2' (manual)" in report.created
    assert any(line.startswith("rule 'api-style': the agent has the same one") for line in report.skipped)
    lines = report.lines()
    assert lines[0].endswith("(dry run: nothing written)")
    assert "  would import: rule 'testing-2' (manual)" in lines


def test_a_dry_run_into_a_new_folder_creates_nothing(tmp_path: Path) -> None:
    report = import_source(CORPUS / "tspark-agent", tmp_path / "new", dry_run=True)
    assert not (tmp_path / "new").exists()
    assert list(tmp_path.iterdir()) == []
    assert "rule 'be-brief' (always)" in report.created


def test_replace_overwrites_and_reports_what_changed(tmp_path: Path) -> None:
    target = create_agent(tmp_path / "agent").root
    import_source(CORPUS / "cursor-both", target)
    (target / "rules" / "testing.md").write_text("---\nname: testing\n---\nMine.\n", encoding="utf-8")
    report = import_source(CORPUS / "cursor-both", target, replace=True)
    assert "rule 'testing' replaced (manual)" in report.changed
    assert load_agent(target).rules["testing"].text.startswith("# Testing")
    assert not (target / "rules" / "testing-2.md").exists()


def test_an_existing_agent_keeps_its_name_and_prompt_unless_replace(tmp_path: Path) -> None:
    target = create_agent(tmp_path / "agent", name="Mine").root
    report = import_source(CORPUS / "tspark-agent", target)
    agent = load_agent(target)
    assert agent.name == "Mine"
    assert any(
        line.startswith("name: the agent's own is kept") and "--replace" in line for line in report.skipped
    )
    assert "be-brief" in agent.rules and "filesystem" in agent.config.mcp_servers
    import_source(CORPUS / "tspark-agent", target, replace=True)
    assert load_agent(target).name == "Old Spark"


def test_a_server_of_the_same_name_but_other_settings_is_added_numbered(tmp_path: Path) -> None:
    target = tmp_path / "agent"
    import_source(CORPUS / "tspark-agent", target)
    source = tmp_path / "servers.json"
    source.write_text(
        '{"mcpServers": {"fetch": {"command": "uvx", "args": ["other-fetch"]}}}', encoding="utf-8"
    )
    report = import_source(source, target)
    servers = load_agent(target).config.mcp_servers
    assert "fetch-2" in servers and servers["fetch"].args == ["mcp-server-fetch"]  # type: ignore[union-attr]
    assert any("added as 'fetch-2'" in line for line in report.warnings)
    again = import_source(source, target)
    assert any(line.startswith("MCP server 'fetch': ") for line in again.warnings)


def test_a_failed_move_leaves_the_existing_agent_exactly_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = create_agent(tmp_path / "agent").root
    import_source(CORPUS / "cursor-both", target)
    for name in ("quoted", "testing"):
        (target / "rules" / f"{name}.md").write_text(f"---\nname: {name}\n---\nMine.\n", encoding="utf-8")
    before = folder_bytes(target)
    real_replace = Path.replace
    moves_into_agent = 0

    def fail_on_second_move_into_the_agent(self: Path, destination: Path) -> Path:
        nonlocal moves_into_agent
        if Path(destination).is_relative_to(target):
            moves_into_agent += 1
            if moves_into_agent == 2:
                raise OSError(28, "No space left on device")
        return real_replace(self, destination)

    monkeypatch.setattr(Path, "replace", fail_on_second_move_into_the_agent)
    with pytest.raises(AgentImportError, match="the agent is unchanged"):
        import_source(CORPUS / "cursor-both", target, replace=True)
    monkeypatch.undo()
    assert folder_bytes(target) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent"]  # no temporary folder left


def test_a_failed_write_into_a_new_folder_leaves_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_core.agent.importers import _staging

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError(13, "Permission denied")

    monkeypatch.setattr(_staging, "save_agent_config", refuse)
    with pytest.raises(OSError):
        import_source(CORPUS / "cursor-long-names", tmp_path / "new")
    assert list(tmp_path.iterdir()) == []


def test_the_cli_dry_run_and_replace_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "agent"
    assert main(["agent", "import", str(CORPUS / "cursor-old"), str(target), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "Dry run: would import" in out and "would import: rule 'cursor-rules' (always)" in out
    assert not target.exists()
    assert main(["agent", "import", str(CORPUS / "cursor-old"), str(target)]) == 0
    assert main(["agent", "import", str(CORPUS / "cursor-old"), str(target), "--overwrite"]) == 0
    out = capsys.readouterr().out
    assert "skipped: rule 'cursor-rules': the agent has the same one; nothing to do" in out


def test_a_rule_whose_globs_changed_is_not_the_same_and_replace_updates_them(tmp_path: Path) -> None:
    import shutil

    source = tmp_path / "src"
    shutil.copytree(Path(__file__).parents[2] / "fixtures" / "importers" / "cursor-globs", source)
    target = tmp_path / "agent"
    import_source(source, target)
    rule = source / ".cursor" / "rules" / "react-components.mdc"
    rule.write_text(rule.read_text().replace("src/components/**/*.tsx", "app/**/*.tsx"))
    again = import_source(source, target, replace=True)
    assert any("react-components" in line for line in again.changed)
    assert "app/**/*.tsx" in load_agent(target).rules["react-components"].globs
    unchanged = import_source(source, target, replace=True)
    assert not any("react-components" in line for line in unchanged.changed)
