"""Importing skills found twice, and into an agent that already has skills: duplicates are kept
once unless asked, nothing of the agent's is overwritten without --replace."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_core.agent.importers import import_source
from agent_core.agent.loader import load_agent
from agent_core.cli.main import main
from tests.support.agent_files import write
from tests.support.paths import FIXTURES

COLLECTION = FIXTURES / "skill_import" / "collection"
SHELLCHECK = COLLECTION / "plugins/shell-scripting/skills/shellcheck-configuration"
GALLERY = COLLECTION / "codex-image-gallery"


def two_collections(root: Path) -> Path:
    """The same real skill in two collections, and one SKILL.md copied under another folder name."""
    shutil.copytree(SHELLCHECK, root / "first" / "skills" / "shellcheck-configuration")
    shutil.copytree(SHELLCHECK, root / "second" / "plugins" / "shell" / "skills" / "shellcheck-configuration")
    text = (SHELLCHECK / "SKILL.md").read_text(encoding="utf-8")
    changed = root / "third" / "plugins" / "shell" / "skills" / "shellcheck-configuration"
    shutil.copytree(SHELLCHECK, changed)
    (changed / "SKILL.md").write_text(text + "\nOne more line.\n", encoding="utf-8")
    return root


def test_the_same_skill_in_two_collections_is_kept_once_and_reported(tmp_path: Path) -> None:
    source = two_collections(tmp_path / "clones")
    report = import_source(source, tmp_path / "agent")
    assert sorted(p.name for p in (tmp_path / "agent" / "skills").iterdir()) == ["shellcheck-configuration"]
    duplicates = [line for line in report.skipped if "'shellcheck-configuration' from first/" in line]
    assert len(duplicates) == 2
    assert "a duplicate of" in duplicates[0] and "(the same name and the same SKILL.md)" in duplicates[0]
    assert duplicates[1].startswith("skill 'shellcheck-configuration' (from third/plugins/shell/skills/")
    assert "the two differ (their SKILL.md files differ)" in duplicates[1]
    assert all("--keep-duplicates" in line for line in duplicates)


def test_a_byte_identical_skill_md_under_another_name_is_a_duplicate(tmp_path: Path) -> None:
    shutil.copytree(SHELLCHECK, tmp_path / "src" / "a" / "shellcheck-configuration")
    shutil.copytree(SHELLCHECK, tmp_path / "src" / "b" / "shellcheck-copy")
    text = (SHELLCHECK / "SKILL.md").read_text(encoding="utf-8")
    (tmp_path / "src/b/shellcheck-copy/SKILL.md").write_text(
        text.replace("name: shellcheck-configuration\n", "")
    )
    (tmp_path / "src/a/shellcheck-configuration/SKILL.md").write_text(
        text.replace("name: shellcheck-configuration\n", "")
    )
    report = import_source(tmp_path / "src", tmp_path / "agent")
    assert sorted(p.name for p in (tmp_path / "agent" / "skills").iterdir()) == ["shellcheck-configuration"]
    assert any("(a byte-identical SKILL.md)" in line for line in report.skipped)


def test_keep_duplicates_keeps_every_copy_under_a_numbered_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = two_collections(tmp_path / "clones")
    code = main(["agent", "import", "--keep-duplicates", str(source), str(tmp_path / "agent")])
    out = capsys.readouterr().out
    assert code == 0
    agent = load_agent(tmp_path / "agent")
    assert sorted(agent.skills) == [
        "shellcheck-configuration",
        "shellcheck-configuration-2",
        "shellcheck-configuration-3",
    ]
    assert agent.skills["shellcheck-configuration-3"].body.endswith("One more line.\n")
    assert agent.skills["shellcheck-configuration-2"].display_name == "shellcheck-configuration"
    assert "added as 'shellcheck-configuration-2'" in out and "kept as asked" in out
    assert agent.errors == []


def test_importing_the_same_collection_again_adds_nothing(tmp_path: Path) -> None:
    import_source(COLLECTION, tmp_path / "agent")
    report = import_source(COLLECTION, tmp_path / "agent")
    assert [line for line in report.created if line.startswith("skill")] == []
    assert sum("the agent has the same one" in line for line in report.skipped) == 7


def test_a_different_skill_of_a_name_the_agent_has_is_added_numbered_unless_replace(tmp_path: Path) -> None:
    agent_root = tmp_path / "agent"
    import_source(GALLERY, agent_root)
    mine = agent_root / "skills" / "codex-image-gallery"
    (mine / "notes.md").write_text("my own notes\n", encoding="utf-8")
    report = import_source(GALLERY, agent_root)
    assert (agent_root / "skills" / "codex-image-gallery-2" / "SKILL.md").is_file()
    assert (mine / "notes.md").read_text(encoding="utf-8") == "my own notes\n"  # not clobbered
    assert any("the agent has a different skill 'codex-image-gallery'" in line for line in report.warnings)

    report = import_source(GALLERY, agent_root, replace=True)
    assert "skill 'codex-image-gallery' replaced by the one from ." in report.changed
    assert not (mine / "notes.md").exists()  # the replaced skill is exactly the source's again
    assert (mine / "scripts" / "server.mjs").read_bytes() == (GALLERY / "scripts" / "server.mjs").read_bytes()


def test_a_skill_the_agent_has_under_another_name_is_reported_not_copied_again(tmp_path: Path) -> None:
    agent_root = tmp_path / "agent"
    import_source(SHELLCHECK, agent_root)
    (agent_root / "skills" / "shellcheck-configuration").rename(agent_root / "skills" / "linting")
    report = import_source(SHELLCHECK, agent_root)
    assert sorted(p.name for p in (agent_root / "skills").iterdir()) == ["linting"]
    assert any("the agent has the same SKILL.md as its skill 'linting'" in line for line in report.skipped)


def test_replacing_a_skill_found_twice_in_the_source_replaces_it_once(tmp_path: Path) -> None:
    agent_root = tmp_path / "agent"
    import_source(SHELLCHECK, agent_root)
    (agent_root / "skills" / "shellcheck-configuration" / "mine.md").write_text("mine\n", encoding="utf-8")
    source = two_collections(tmp_path / "clones")
    report = import_source(source, agent_root, replace=True)
    assert sorted(p.name for p in (agent_root / "skills").iterdir()) == ["shellcheck-configuration"]
    assert not (agent_root / "skills" / "shellcheck-configuration" / "mine.md").exists()
    assert sum("--keep-duplicates" in line for line in report.skipped) == 2


def test_a_skill_the_agent_has_is_not_added_again_from_a_second_copy(tmp_path: Path) -> None:
    agent_root = tmp_path / "agent"
    import_source(SHELLCHECK, agent_root)
    report = import_source(two_collections(tmp_path / "clones"), agent_root)
    assert sorted(p.name for p in (agent_root / "skills").iterdir()) == ["shellcheck-configuration"]
    assert any("the agent has the same one" in line for line in report.skipped)
    assert sum("--keep-duplicates" in line for line in report.skipped) == 2


def test_of_two_skills_of_one_name_the_stable_one_is_kept_and_the_report_says_they_differ(
    tmp_path: Path,
) -> None:
    # UiPath/skills: preview/uipath-maestro-flow sorts before skills/uipath-maestro-flow.
    header = "---\nname: uipath-maestro-flow\ndescription: {0} Maestro flows.\n---\n{0} steps.\n"
    write(tmp_path / "src/preview/uipath-maestro-flow/SKILL.md", header.format("Preview"))
    write(tmp_path / "src/skills/uipath-maestro-flow/SKILL.md", header.format("Stable"))
    report = import_source(tmp_path / "src", tmp_path / "agent")
    agent = load_agent(tmp_path / "agent")
    assert agent.skills["uipath-maestro-flow"].description == "Stable Maestro flows."
    assert report.skipped == [
        "skill 'uipath-maestro-flow' (from preview/uipath-maestro-flow): not imported: another skill of the "
        "same name, 'uipath-maestro-flow' from skills/uipath-maestro-flow, was kept (this one is in a preview, "
        "draft or deprecated folder), and the two differ (their SKILL.md files differ); check which one you "
        "want, or import with --keep-duplicates to keep both (this one as 'uipath-maestro-flow-2')"
    ]


def test_of_two_skills_of_one_name_the_shallower_one_is_kept(tmp_path: Path) -> None:
    header = "---\nname: pdf\ndescription: {0} PDF files.\n---\nRead them.\n"
    write(tmp_path / "src/a-plugins/docs/skills/pdf/SKILL.md", header.format("Nested"))
    write(tmp_path / "src/pdf/SKILL.md", header.format("Top"))
    report = import_source(tmp_path / "src", tmp_path / "agent")
    assert load_agent(tmp_path / "agent").skills["pdf"].description == "Top PDF files."
    assert "was kept (its path is shallower)" in report.skipped[0]
