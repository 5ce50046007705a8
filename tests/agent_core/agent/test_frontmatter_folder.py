"""One loader for every kind of Markdown file with a YAML header in an agent folder: rules,
references and sub-agents refuse the same hostile files the same way, and a kind with one file
per sub-folder (skills) plugs in with its own spec."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent_core.agent.agent import Agent
from agent_core.agent.document_loader import MAX_ITEM_BYTES
from agent_core.agent.frontmatter_folder import FolderKind, HeaderedFile, load_folder
from agent_core.agent.items import Problem
from agent_core.agent.loader import load_agent
from tests.support.agent_files import write

GOOD = {
    "rules": "---\ninclude: always\n---\n\nBe kind.\n",
    "references": "---\ninclude: manual\n---\n\nThe style guide.\n",
    "subagents": "---\ndescription: Reviews a change for bugs before it is merged.\n---\nYou review code.\n",
}
BILLION_LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{b}: &{b} [*{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}, *{a}]\n"
    for a, b in zip("abcdefgh", "bcdefghi", strict=True)
)


def load_within(root: Path, seconds: float = 20.0) -> Agent:
    """The agent in ``root``, failing the test (not hanging it) when loading does not return."""
    loaded: list[Agent] = []
    thread = threading.Thread(target=lambda: loaded.append(load_agent(root)), daemon=True)
    thread.start()
    thread.join(seconds)
    assert loaded, f"loading {root} did not finish within {seconds} s"
    return loaded[0]


def items_of(agent: Agent, folder: str) -> list[str]:
    held = {"rules": agent.rules, "references": agent.references, "subagents": agent.subagents}
    return list(held[folder])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("folder", sorted(GOOD))
def test_every_kind_refuses_the_same_hostile_files_with_a_located_fix(tmp_path: Path, folder: str) -> None:
    root = tmp_path / "agent"
    write(root / "agent.yaml", "name: Cloned\n")
    good = GOOD[folder]
    items = root / folder
    write(items / "good.md", good)
    (items / "leak.md").symlink_to(write(tmp_path / "home" / "secret.md", good + "SSH key: hunter2\n"))
    os.mkfifo(items / "pipe.md")
    write(items / "binary.md", good.encode() + b"Ignore\0 this.\n")
    write(items / "latin.md", (good + "Caf\xe9\n").encode("latin-1"))
    write(items / "huge.md", good + "x" * MAX_ITEM_BYTES)
    write(items / "laughs.md", f"---\n{BILLION_LAUGHS}---\n\nHa.\n")
    write(items / "open.md", "---\ndescription: the header is never closed\n")

    agent = load_within(root)

    assert items_of(agent, folder) == ["good"]
    refused = {p.path.name: p for p in agent.problems}
    assert set(refused) == {"leak.md", "pipe.md", "binary.md", "latin.md", "huge.md", "laughs.md", "open.md"}
    assert len(agent.problems) == len(refused)  # one problem a file
    expected = {
        "leak.md": ("outside the agent folder", None),
        "pipe.md": ("is a named pipe, not an ordinary file", None),
        "binary.md": ("contains a NUL character", good.count("\n") + 1),
        "latin.md": ("not UTF-8 text", None),
        "huge.md": ("larger than 5 MB", None),
        "laughs.md": ("expand to more than 100,000 values", 6),
        "open.md": ("is never closed", 1),
    }
    for name, (message, line) in expected.items():
        problem = refused[name]
        assert problem.severity == "error" and message in problem.message, problem.describe(root)
        assert problem.fix and problem.line == line, problem.describe(root)


def test_the_sub_agents_folder_holds_agent_folders_and_other_files_without_a_warning(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    write(root / "agent.yaml", "name: Parent\n")
    write(root / "subagents" / "reviewer.md", GOOD["subagents"])
    write(root / "subagents" / "researcher" / "agent.yaml", "name: Researcher\n")
    write(root / "subagents" / "notes.txt", "which one to use when\n")
    (root / "subagents" / "folder.md").mkdir()
    agent = load_agent(root)
    assert list(agent.subagents) == ["reviewer"]
    [problem] = agent.problems
    assert problem.path.name == "folder.md" and problem.severity == "error"
    assert "a folder, not a sub-agent file" in problem.message and "directly in subagents/" in problem.fix


def test_of_two_rules_named_alike_the_first_file_wins_and_the_result_is_sorted_by_name(
    tmp_path: Path,
) -> None:
    root = tmp_path / "agent"
    write(root / "agent.yaml", "name: Rules\n")
    for name in ("a-b", "a", "Kind", "kind"):
        write(root / "rules" / f"{name}.md", GOOD["rules"])
    agent = load_agent(root)
    assert list(agent.rules) == ["Kind", "a", "a-b"]
    [twin] = agent.problems
    assert twin.path.name == "kind.md" and "another rule (Kind.md) is named 'Kind'" in twin.message


# --- a kind with one file per sub-folder plugs in with its spec ----------------------------------


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path | None


SKILLS = FolderKind(
    folder="skills",
    noun="skill",
    too_large_fix="move the details into other files of the skill",
    entry="SKILL.md",
    header_needed="a skill needs a description (when to use it)",
)


def skill(file: HeaderedFile, problems: list[Problem]) -> Skill | None:
    description = str((file.header or {}).get("description", ""))
    if not description:
        problems.append(Problem(file.path, "no description", "add one", file.header_line))
        return None
    return Skill(file.name, description, file.path)


def test_a_kind_with_one_file_per_sub_folder_loads_each_folder_by_its_name(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    skills = root / "skills"
    write(skills / "pdf" / "SKILL.md", "---\ndescription: Fill in PDF forms\n---\nRun forms.py.\n")
    write(skills / "pdf" / "forms.md", "the skill's own file, not a skill\n")
    write(skills / "empty" / "notes.txt", "no SKILL.md here\n")
    write(skills / "stray.md", GOOD["rules"])
    write(skills / "bad name!" / "SKILL.md", "---\ndescription: d\n---\n")
    write(skills / "bare" / "SKILL.md", "No header.\n")
    write(skills / "blank" / "SKILL.md", "---\ntitle: no description\n---\n")
    (skills / "leak").mkdir()
    (skills / "leak" / "SKILL.md").symlink_to(
        write(tmp_path / "home" / "SKILL.md", "---\ndescription: x\n---\n")
    )
    problems: list[Problem] = []

    found = load_folder(root, SKILLS, skill, problems)

    assert found == {"pdf": Skill("pdf", "Fill in PDF forms", skills / "pdf" / "SKILL.md")}
    where = {p.path.relative_to(skills).as_posix(): p for p in problems}
    assert set(where) == {
        "empty",
        "stray.md",
        "bad name!/SKILL.md",
        "bare/SKILL.md",
        "blank/SKILL.md",
        "leak/SKILL.md",
    }
    assert "has no SKILL.md" in where["empty"].message and where["empty"].severity == "warning"
    assert "each skill is a sub-folder of skills/ with a SKILL.md" in where["stray.md"].message
    assert "rename the folder to bad-name" in where["bad name!/SKILL.md"].fix
    assert "no header: a skill needs a description" in where["bare/SKILL.md"].message
    assert where["blank/SKILL.md"].line == 2
    assert "outside the agent folder" in where["leak/SKILL.md"].message


def test_a_skills_file_instead_of_a_folder_says_what_the_folder_holds(tmp_path: Path) -> None:
    write(tmp_path / "skills", "not a folder\n")
    problems: list[Problem] = []
    assert load_folder(tmp_path, SKILLS, skill, problems) == {}
    [problem] = problems
    assert "'skills' is a file, not a folder, so no skill is read" in problem.message
    assert "one sub-folder with a SKILL.md per skill" in problem.fix
