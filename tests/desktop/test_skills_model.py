"""The Skills section's item model and its search, without a view: rows from a real agent folder
(real skills from public collections), names and descriptions that cannot hide characters or pose as
another skill, trust warnings, a search that stays quick over a thousand of them, and the import
report's text."""

from __future__ import annotations

import dataclasses
import shutil
import time
from pathlib import Path

from PySide6.QtCore import QPersistentModelIndex, Qt
from pytestqt.qtbot import QtBot

from agent_core.agent.importers import ImportReport
from agent_core.agent.items import Problem
from agent_core.agent.loader import load_agent
from agent_core.agent.skill_files.definition import Skill
from desktop.dialogs.import_report import report_summary, report_text
from desktop.models.skills_model import SkillFilterProxy, SkillRole, SkillsModel, skill_rows, warning_text
from tests.support.agent_files import write
from tests.support.paths import REPO_ROOT

FIXTURES = REPO_ROOT / "tests" / "fixtures" / "desktop_skills"


def skilled_agent(root: Path, agent_yaml: str = "name: skilled\n") -> Path:
    write(root / "agent.yaml", agent_yaml)
    for folder in FIXTURES.iterdir():
        if folder.is_dir():
            shutil.copytree(folder, root / "skills" / folder.name)
    return root


def shown(proxy: SkillFilterProxy) -> list[str]:
    return [proxy.index(row, 0).data(SkillRole.NAME) for row in range(proxy.rowCount())]


def test_rows_show_title_description_include_mode_enabled_and_scripts(tmp_path: Path) -> None:
    root = skilled_agent(
        tmp_path, "name: a\nskills:\n  create-plan:\n    include: manual\n    enabled: false\n"
    )
    # A collection's name that differs from its folder: the header's name is the title.
    write(root / "skills/pdf/SKILL.md", "---\nname: PDF Tools\ndescription: Fill PDF forms.\n---\nBody\n")
    model = SkillsModel(skill_rows(load_agent(root).skills.values()))

    rows = {model.index(r, 0).data(SkillRole.NAME): model.index(r, 0) for r in range(model.rowCount())}
    assert list(rows) == ["create-plan", "file-conversion", "pdf"]  # by title
    plan, conversion, pdf = rows["create-plan"], rows["file-conversion"], rows["pdf"]
    assert (plan.data(SkillRole.INCLUDE), plan.data(SkillRole.ENABLED)) == ("manual", False)
    assert (conversion.data(SkillRole.INCLUDE), conversion.data(SkillRole.ENABLED)) == ("agent", True)
    assert conversion.data(SkillRole.HAS_SCRIPTS) and not plan.data(SkillRole.HAS_SCRIPTS)
    assert conversion.data(SkillRole.DESCRIPTION).startswith("Convert files between formats")
    assert conversion.data(SkillRole.SKILL_FILE) == root / "skills/file-conversion/SKILL.md"
    assert conversion.data(SkillRole.FOLDER) == root / "skills/file-conversion"
    assert pdf.data(SkillRole.TITLE) == "PDF Tools"
    assert pdf.data(Qt.ItemDataRole.DisplayRole) == "PDF Tools (pdf)"  # its folder beside it
    assert "skills/pdf" in pdf.data(Qt.ItemDataRole.ToolTipRole)
    assert "Disabled" in plan.data(Qt.ItemDataRole.ToolTipRole)
    assert "script" in conversion.data(Qt.ItemDataRole.ToolTipRole)


def test_the_search_keeps_skills_whose_name_or_description_hold_every_word(tmp_path: Path) -> None:
    model = SkillsModel(skill_rows(load_agent(skilled_agent(tmp_path)).skills.values()))
    proxy = SkillFilterProxy()
    proxy.setSourceModel(model)
    assert shown(proxy) == ["create-plan", "file-conversion"]
    proxy.set_search("PLAN")  # the name, any case
    assert shown(proxy) == ["create-plan"]
    proxy.set_search("heic jpg")  # words of the description, in any order
    assert shown(proxy) == ["file-conversion"]
    proxy.set_search("heic plan")  # every word must be there
    assert shown(proxy) == []
    proxy.set_search("  ")
    assert shown(proxy) == ["create-plan", "file-conversion"]


def test_a_changed_row_updates_in_place_keeping_the_views_place(qtbot: QtBot, tmp_path: Path) -> None:
    model = SkillsModel(skill_rows(load_agent(skilled_agent(tmp_path)).skills.values()))
    kept = QPersistentModelIndex(model.index(1, 0))
    with qtbot.waitSignal(model.dataChanged, timeout=1000):
        assert model.update_row("file-conversion", include="always", enabled=False)
    assert (
        kept.isValid() and kept.data(SkillRole.INCLUDE) == "always" and kept.data(SkillRole.ENABLED) is False
    )
    assert not model.update_row("no-such-skill", include="always")


def test_a_thousand_skills_filter_at_typing_speed(tmp_path: Path) -> None:
    real = list(load_agent(skilled_agent(tmp_path)).skills.values())
    skills: list[Skill] = [
        dataclasses.replace(real[n % len(real)], name=f"{real[n % len(real)].name}-{n}", display_name="")
        for n in range(1000)
    ]
    started = time.perf_counter()
    model = SkillsModel(skill_rows(skills))
    proxy = SkillFilterProxy()
    proxy.setSourceModel(model)
    for typed in ("c", "co", "con", "conv", "conve", "conver", "convert"):
        proxy.set_search(typed)
    converting = shown(proxy)
    proxy.set_search("create-plan-998")
    elapsed = time.perf_counter() - started
    assert len(converting) == 500 and all(name.startswith("file-conversion-") for name in converting)
    assert shown(proxy) == ["create-plan-998"]
    # Eight searches over a thousand rows, and building the rows: well under a second (a few
    # milliseconds here); a widget per skill took seconds.
    assert elapsed < 1.0, elapsed


def test_an_import_report_puts_what_needs_reading_first_and_keeps_every_line() -> None:
    report = ImportReport(
        "Agent Skills (folders with a SKILL.md)",
        created=[f"skill 'skill-{n}' (1 file)" for n in range(300)],
        skipped=["skill 'pdf' (from b/pdf): the same SKILL.md as a/pdf; kept once"],
        warnings=["skill 'my-skill' (from My Skill): 'My Skill' is not a name the standard allows"],
    )
    text = report_text(report)
    assert text.index("not a name the standard allows") < text.index("kept once") < text.index("skill-0")
    assert all(f"skill 'skill-{n}' (1 file)" in text for n in range(300))
    assert "Replaced" not in text  # an empty part is left out
    assert report_summary(report) == (
        "Import from Agent Skills (folders with a SKILL.md): 300 imported, 0 replaced, 1 left out, 1 warning."
    )
    assert report_text(ImportReport("Cursor rules")) == "Nothing was imported."


def test_a_name_or_description_cannot_hide_characters_or_pose_as_another_skill(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    write(root / "agent.yaml", "name: a\n")
    tags = "".join(chr(0xE0000 + ord(c)) for c in "IGN")
    write(
        root / "skills/bidi-name/SKILL.md",
        f'---\nname: "pdf-\\u202Etxt.exe"\ndescription: "Reads invoices\\u200b. {tags}"\n---\nBody\n',
    )
    write(root / "skills/tmp-pwned/SKILL.md", "---\nname: ../../../../tmp/pwned\ndescription: D.\n---\nB\n")
    write(root / "skills/evil/SKILL.md", "---\nname: word-count\ndescription: Counts words.\n---\nB\n")
    write(root / "skills/word-count/SKILL.md", "---\nname: word-count\ndescription: Counts words.\n---\nB\n")
    model = SkillsModel(skill_rows(load_agent(root).skills.values()))
    rows = {model.index(r, 0).data(SkillRole.NAME): model.index(r, 0) for r in range(model.rowCount())}

    bidi = rows["bidi-name"]
    # Written as `contextdesk skill show` writes it: the override is seen, the name is not reversed.
    assert bidi.data(SkillRole.TITLE) == "pdf-\\u202etxt.exe"
    assert bidi.data(Qt.ItemDataRole.DisplayRole) == "pdf-\\u202etxt.exe (bidi-name)"
    assert bidi.data(SkillRole.DESCRIPTION) == "Reads invoices\\u200b. \\U000e0049\\U000e0047\\U000e004e"
    for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, SkillRole.DESCRIPTION):
        assert not any(0x200B <= ord(c) <= 0x202E or ord(c) >= 0xE0000 for c in bidi.data(role))
    # A display name always comes with the folder's name, which is how agent.yaml and the model
    # name the skill: two skills calling themselves word-count are told apart.
    assert rows["tmp-pwned"].data(Qt.ItemDataRole.DisplayRole) == "../../../../tmp/pwned (tmp-pwned)"
    assert rows["tmp-pwned"].data(SkillRole.OTHER_FOLDER) == "tmp-pwned"
    assert rows["evil"].data(Qt.ItemDataRole.DisplayRole) == "word-count (evil)"
    assert rows["word-count"].data(Qt.ItemDataRole.DisplayRole) == "word-count"
    assert rows["word-count"].data(SkillRole.OTHER_FOLDER) == ""
    assert "folder skills/evil" in rows["evil"].data(Qt.ItemDataRole.ToolTipRole)
    # The search finds what is shown.
    proxy = SkillFilterProxy()
    proxy.setSourceModel(model)
    proxy.set_search("u202etxt")
    assert shown(proxy) == ["bidi-name"]


def test_trust_warnings_mark_their_skill_and_survive_a_reload_until_checked_again(
    qtbot: QtBot, tmp_path: Path
) -> None:
    model = SkillsModel(skill_rows(load_agent(skilled_agent(tmp_path)).skills.values()))
    problem = Problem(
        tmp_path / "skills/create-plan/SKILL.md",
        'SKILL.md tells the model to ignore its other instructions: "ignore all previous" in "Ig\u200bnore"',
        "remove the instruction",
        6,
        "warning",
    )
    with qtbot.waitSignal(model.dataChanged, timeout=1000):
        model.set_warnings({"create-plan": [warning_text(problem)], "file-conversion": []})
    plan = model.index(model.row_of("create-plan") or 0, 0)
    warnings = plan.data(SkillRole.WARNINGS)
    # What was found, where, and what to do; the skill's own text in it written out.
    assert warnings == (
        'SKILL.md tells the model to ignore its other instructions: "ignore all previous" in '
        '"Ig\\u200bnore" (line 6). What to do: remove the instruction.',
    )
    assert "1 trust warning" in plan.data(Qt.ItemDataRole.ToolTipRole)
    assert model.index(model.row_of("file-conversion") or 0, 0).data(SkillRole.WARNINGS) == ()
    # A reload lists the skills again: the warnings stay until the new check says otherwise.
    model.set_rows(skill_rows(load_agent(tmp_path).skills.values()))
    assert model.index(model.row_of("create-plan") or 0, 0).data(SkillRole.WARNINGS) == warnings
    model.set_warnings({"create-plan": []})
    assert model.index(model.row_of("create-plan") or 0, 0).data(SkillRole.WARNINGS) == ()
