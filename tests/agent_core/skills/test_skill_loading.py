"""Skills in an agent folder: read as the tools that share them write them, settings from agent.yaml."""

from __future__ import annotations

import os
from pathlib import Path

from agent_core.agent._loose_header import read_loose_header
from agent_core.agent.loader import load_agent
from agent_core.agent.schema import IncludeMode
from agent_core.agent.skill_files.definition import KEPT_DESCRIPTION_CHARS
from tests.support.agent_files import write

CLAUDE_STYLE = """---
name: pdf-tools
description: Use this skill when: the user asks about PDF forms. Examples:
  <example>user: fill in this form</example>
allowed-tools: Bash(python:*) Read
---
# PDF tools

Run scripts/fill.py.
"""


def make_agent(root: Path, agent_yaml: str = "name: skilled\n") -> Path:
    write(root / "agent.yaml", agent_yaml)
    return root


def test_a_header_yaml_rejects_is_read_as_claude_code_reads_it_with_a_warning(tmp_path: Path) -> None:
    root = make_agent(tmp_path)
    write(root / "skills/pdf-tools/SKILL.md", CLAUDE_STYLE)
    write(root / "skills/pdf-tools/scripts/fill.py", "print('filled')\n")
    agent = load_agent(root)
    skill = agent.skills["pdf-tools"]
    assert skill.description.startswith("Use this skill when: the user asks about PDF forms. Examples:")
    assert "<example>user: fill in this form</example>" in skill.description
    assert skill.allowed_tools == ("Bash(python:*)", "Read")
    assert skill.files == ("scripts/fill.py",) and skill.scripts == ("scripts/fill.py",)
    assert skill.include is IncludeMode.AGENT and skill.enabled  # the default: chosen per message
    assert skill.body.startswith("# PDF tools")
    [warning] = [p for p in agent.problems if p.path.name == "SKILL.md"]
    assert warning.severity == "warning" and "as Claude Code reads it" in warning.message


def test_the_agents_own_choices_for_a_skill_come_from_agent_yaml(tmp_path: Path) -> None:
    root = make_agent(
        tmp_path,
        "name: a\nskills:\n  notes:\n    include: always\n    enabled: false\n    priorityLevel: 3\n",
    )
    write(root / "skills/notes/SKILL.md", "---\nname: notes\ndescription: Take notes.\n---\nBody\n")
    skill = load_agent(root).skills["notes"]
    assert (skill.include, skill.enabled, skill.priority_level) == (IncludeMode.ALWAYS, False, 3)
    assert (
        root / "skills/notes/SKILL.md"
    ).read_text() == "---\nname: notes\ndescription: Take notes.\n---\nBody\n"


def test_a_bad_skill_setting_is_reported_and_the_skill_still_loads(tmp_path: Path) -> None:
    root = make_agent(tmp_path, "name: a\nskills:\n  notes:\n    include: sometimes\n  ghost: {}\n")
    write(root / "skills/notes/SKILL.md", "---\nname: notes\ndescription: Take notes.\n---\nBody\n")
    agent = load_agent(root)
    assert agent.skills["notes"].include is IncludeMode.AGENT
    messages = [p.message for p in agent.problems]
    assert any("include" in m for m in messages)
    assert any("'ghost' has settings but no folder" in m for m in messages)


def test_a_header_name_other_than_the_folder_is_kept_for_display(tmp_path: Path) -> None:
    root = make_agent(tmp_path)
    write(root / "skills/pdf/SKILL.md", "---\nname: PDF Processing\ndescription: PDFs.\n---\n")
    write(root / "skills/xlsx/SKILL.md", "---\nname: spreadsheets\ndescription: Sheets.\n---\n")
    agent = load_agent(root)
    assert agent.skills["pdf"].title == "PDF Processing"
    assert agent.skills["xlsx"].title == "spreadsheets"
    assert any("folder is 'xlsx'" in p.message for p in agent.problems)


def test_a_skill_file_linking_out_of_the_agent_folder_is_refused_and_reported(tmp_path: Path) -> None:
    root = make_agent(tmp_path / "agent")
    outside = tmp_path / "secret.txt"
    outside.write_text("token")
    write(root / "skills/leaky/SKILL.md", "---\nname: leaky\ndescription: Leaks.\n---\n")
    os.symlink(outside, root / "skills/leaky/notes.md")
    write(tmp_path / "elsewhere/SKILL.md", "---\nname: elsewhere\ndescription: Not ours.\n---\n")
    os.symlink(tmp_path / "elsewhere", root / "skills/elsewhere")
    agent = load_agent(root)
    assert set(agent.skills) == {"leaky"} and agent.skills["leaky"].files == ()
    outside_problems = [p for p in agent.problems if "outside the agent folder" in p.message]
    assert sorted(p.path.relative_to(root).as_posix() for p in outside_problems) == [
        "skills/elsewhere/SKILL.md",
        "skills/leaky/notes.md",
    ]


def test_no_description_or_a_long_one_is_a_warning_not_a_lost_skill(tmp_path: Path) -> None:
    root = make_agent(tmp_path)
    write(root / "skills/bare/SKILL.md", "---\nname: bare\n---\nJust a body.\n")
    write(root / "skills/long/SKILL.md", f"---\nname: long\ndescription: {'word ' * 300}\n---\n")
    agent = load_agent(root)
    assert set(agent.skills) == {"bare", "long"}
    assert all(p.severity == "warning" for p in agent.problems)
    assert len(agent.problems) == 2
    assert agent.skills["long"].description == ("word " * 300).strip()  # over the standard: kept whole


def test_a_huge_description_is_cut_to_what_goes_into_requests_and_selection(tmp_path: Path) -> None:
    # Every request's skill catalogue carries it, and selection embeds it: a description of a
    # million characters (a hostile or broken skill) must not reach either whole.
    root = make_agent(tmp_path)
    write(
        root / "skills/huge/SKILL.md",
        f"---\nname: huge\ndescription: {'Use it to convert files. ' * 40_000}\n---\n",
    )
    agent = load_agent(root)
    description = agent.skills["huge"].description
    assert description.startswith("Use it to convert files.") and len(description) <= KEPT_DESCRIPTION_CHARS
    [problem] = agent.problems
    assert (
        problem.severity == "warning"
        and f"only its first {KEPT_DESCRIPTION_CHARS:,} are used" in problem.message
    )


def test_the_loose_reading_takes_key_lines_lists_and_blocks() -> None:
    header = (
        'name: "x"\ndescription: first: line\n  second line\ntools:\n  - Read\n  - Grep\nbody: |\n  a\n  b\n'
    )
    assert read_loose_header(header) == {
        "name": "x",
        "description": "first: line\nsecond line",
        "tools": ["Read", "Grep"],
        "body": "a\nb",
    }


def test_a_skill_folder_the_loader_cannot_use_gets_the_name_an_import_would_give(tmp_path: Path) -> None:
    root = make_agent(tmp_path)
    write(root / "skills/über/SKILL.md", "---\nname: über\ndescription: Umlauts.\n---\n")
    write(root / "skills/My Skill/SKILL.md", "---\nname: My Skill\ndescription: Spaces.\n---\n")
    fixes = {problem.path.parent.name: problem.fix for problem in load_agent(root).problems}
    assert fixes["über"] == "rename the folder to uber"  # not "ber": the accent is folded, not dropped
    assert fixes["My Skill"] == "rename the folder to my-skill"  # the standard's form, not "My-Skill"
